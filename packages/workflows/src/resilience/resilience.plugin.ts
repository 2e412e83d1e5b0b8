import type { AgentFrameworkPlugin } from "../plugin.js";
import { PLUGIN_TRAITS } from "../plugin.js";
import { ResilienceEmitters, type ResilienceEvents } from "./resilience-events.js";
import { createResilienceMiddleware } from "./resilience.middleware.js";
import { describeResilience, type ResilienceOptions, resolveResilienceOptions } from "./resilience.options.js";

/**
 * The plugin behind `usingResilience(options)`: retries with exponential backoff and jitter, a
 * per-attempt and a total timeout, a circuit breaker and an optional bulkhead per tool. Register it
 * before `usingToolResultMiddleware()` so it sees thrown errors and `ToolResult` values, not outcomes.
 *
 * - Retries a thrown error that `isTransient(error)` says may pass when the tool is `idempotent`, or
 *   for any tool when the error proves the request was not applied (`provesNotApplied`: HTTP 429 or
 *   503, a refused connection...); retries `ToolResult.fail(..., { transient: true })` for any tool;
 *   never a non-transient failure or a cancellation. When attempts run out, the last error is rethrown or the last failed result returned.
 * - Each attempt gets `call.attempt` (1, 2, ...) and its own `signal`, aborted when the caller aborts,
 *   the attempt times out (reason: a `TimeoutError`) or the total timeout passes. A timed-out attempt
 *   is not waited for: the call throws `TimeoutError` at once (retried only for idempotent tools).
 *   `@AgentFunction({ timeoutMs })` replaces `attemptTimeoutMs` for that tool.
 * - Waits honor a larger `retryAfterMs` from the error; a wait that would outlast the total timeout
 *   is not started (the failure is reported instead). The caller's abort ends a wait at once.
 * - An open circuit throws `CircuitOpenError` without calling the tool; a full bulkhead throws
 *   `ToolError` with code `CAPACITY_EXCEEDED` (transient).
 *
 * - A timed-out attempt of a tool not marked `idempotent` throws `ToolError` with code
 *   `OUTCOME_UNKNOWN` (not transient): its effect may have happened, so it is never retried.
 * - A bulkhead slot is held until the tool body really settles; the caller whose attempt timed out
 *   or who aborted is answered at once.
 * - `events` (see {@link ResilienceEvents}) tells subscribers of retries, give-ups, breaker state
 *   changes and bulkhead rejections; diagnostics subscribes to it for its trace events.
 *
 * Options are validated here, so a bad option fails when the factory is built.
 *
 * @example
 * ```ts
 * const plugin = createResiliencePlugin({ retry: { maxAttempts: 4 }, attemptTimeoutMs: 5_000 });
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingPlugin(plugin).usingToolResultMiddleware();
 * ```
 *
 * @deprecated Use {@link resiliencePlugin}, the contract name of the same function.
 */
export function createResiliencePlugin(options?: ResilienceOptions): ResiliencePlugin {
  const resolved = resolveResilienceOptions(options);
  const description = describeResilience(resolved);
  const emitters = new ResilienceEmitters();
  return {
    name: "resilience",
    events: emitters.events,
    traits: [PLUGIN_TRAITS.retries],
    describe: () => description,
    createMiddleware: () => createResilienceMiddleware(resolved, emitters),
  };
}

/**
 * The contract name of {@link createResiliencePlugin}.
 *
 * @example
 * ```ts
 * const plugin = resiliencePlugin({ retry: false });
 * ```
 */
export const resiliencePlugin: (options?: ResilienceOptions) => ResiliencePlugin = createResiliencePlugin;

/**
 * The resilience plugin and its typed events.
 *
 * @example
 * ```ts
 * const plugin: ResiliencePlugin = createResiliencePlugin();
 * plugin.events.onBreak(({ tool }) => console.warn(`${tool}: circuit open`));
 * ```
 */
export interface ResiliencePlugin extends AgentFrameworkPlugin {
  readonly name: "resilience";
  /**
   * Give-ups, breaker state changes and bulkhead rejections of every call through this plugin.
   * Retries are not here: each reaches its own run, through the call's context, as a `tool-retry`
   * event (see docs/resilience.md).
   */
  readonly events: ResilienceEvents;
}

/**
 * The events of every resilience plugin among `plugins` (a composition may hold several): how an
 * observer subscribes to the give-ups and breaker changes of the calls it sees.
 *
 * @example
 * ```ts
 * for (const events of resilienceEventsOf(context.plugins)) events.onGiveUp((e) => console.log(e.callId));
 * ```
 */
export function resilienceEventsOf(plugins: readonly AgentFrameworkPlugin[]): ResilienceEvents[] {
  const found: ResilienceEvents[] = [];
  for (const plugin of plugins) {
    const { events } = plugin as Partial<ResiliencePlugin>;
    if (typeof events?.onGiveUp === "function") found.push(events);
  }
  return found;
}
