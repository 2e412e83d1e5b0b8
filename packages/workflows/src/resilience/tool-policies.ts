import { Bulkhead } from "./bulkhead.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import type { ResilienceEmitters } from "./resilience-events.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";

/** The breaker and bulkhead of one tool (either may be off). @internal */
export interface ToolPolicies {
  readonly breaker: CircuitBreaker | undefined;
  readonly bulkhead: Bulkhead | undefined;
}

const NONE: ToolPolicies = Object.freeze({ breaker: undefined, bulkhead: undefined });

/**
 * One {@link CircuitBreaker} and one {@link Bulkhead} per tool name, created on first use and kept
 * as long as the middleware; breaker state changes are raised on the plugin's events.
 *
 * @example
 * ```ts
 * const registry = new ToolPolicyRegistry(options, emitters);
 * const { breaker, bulkhead } = registry.for("refund");
 * ```
 * @internal
 */
export class ToolPolicyRegistry {
  private readonly byTool = new Map<string, ToolPolicies>();

  constructor(
    private readonly options: ResolvedResilienceOptions,
    private readonly emitters: ResilienceEmitters,
  ) {}

  for(tool: string): ToolPolicies {
    if (!this.options.circuitBreaker && !this.options.bulkhead) return NONE;
    let policies = this.byTool.get(tool);
    if (!policies) {
      policies = { breaker: this.createBreaker(tool), bulkhead: this.createBulkhead() };
      this.byTool.set(tool, policies);
    }
    return policies;
  }

  private createBreaker(tool: string): CircuitBreaker | undefined {
    const settings = this.options.circuitBreaker;
    if (!settings) return undefined;
    return new CircuitBreaker(tool, settings.consecutiveFailures, settings.halfOpenAfterMs, this.emitters);
  }

  private createBulkhead(): Bulkhead | undefined {
    const settings = this.options.bulkhead;
    return settings ? new Bulkhead(settings.limit, settings.queue) : undefined;
  }
}
