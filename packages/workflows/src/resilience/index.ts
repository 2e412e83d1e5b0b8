export {
  createResiliencePlugin,
  resiliencePlugin,
  resilienceEventsOf,
  type ResiliencePlugin,
} from "./resilience.plugin.js";
export type {
  ResilienceEvent,
  ResilienceEvents,
  Subscription,
  ToolBulkheadRejectEvent,
  ToolCircuitEvent,
  ToolGiveUpEvent,
  RetryEvent,
} from "./resilience-events.js";
export {
  DEFAULT_BULKHEAD_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type BulkheadOptions,
  type CircuitBreakerOptions,
  type ResilienceDefaults,
  type ResilienceOptions,
  type RetryOptions,
} from "./resilience.options.js";
