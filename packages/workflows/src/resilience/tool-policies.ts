import { circuitBreaker, type CircuitBreakerPolicy, ConsecutiveBreaker, handleWhenResult } from "cockatiel";
import { type AttemptOutcome, isBreakerFailure } from "./attempt-outcome.js";
import { Bulkhead } from "./bulkhead.js";
import type { ResilienceEmitters } from "./resilience-events.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";

/** The breaker and bulkhead of one tool (either may be off). @internal */
export interface ToolPolicies {
  readonly breaker: CircuitBreakerPolicy | undefined;
  readonly bulkhead: Bulkhead | undefined;
}

const NONE: ToolPolicies = Object.freeze({ breaker: undefined, bulkhead: undefined });

/**
 * One circuit breaker (cockatiel's, counting the attempt outcomes {@link isBreakerFailure} names)
 * and one {@link Bulkhead} per tool name, created on first use and kept as long as the
 * middleware. Breaker state changes are forwarded to the plugin's events.
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
  private readonly breakerPolicy = handleWhenResult((outcome) => isBreakerFailure(outcome as AttemptOutcome));

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

  private createBreaker(tool: string): CircuitBreakerPolicy | undefined {
    const settings = this.options.circuitBreaker;
    if (!settings) return undefined;
    const breaker = circuitBreaker(this.breakerPolicy, {
      halfOpenAfter: settings.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(settings.consecutiveFailures),
    });
    const event = Object.freeze({ tool });
    breaker.onBreak(() => this.emitters.break.emit(event));
    breaker.onHalfOpen(() => this.emitters.halfOpen.emit(event));
    breaker.onReset(() => this.emitters.reset.emit(event));
    return breaker;
  }

  private createBulkhead(): Bulkhead | undefined {
    const settings = this.options.bulkhead;
    return settings ? new Bulkhead(settings.limit, settings.queue) : undefined;
  }
}
