export { resiliencePlugin } from "./resilience.plugin.js";
export {
  DEFAULT_BULKHEAD_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type BulkheadOptions,
  type CircuitBreakerOptions,
  type ResilienceDefaults,
  type ResilienceOptions,
  type RetryOptions,
} from "./resilience.options.js";
