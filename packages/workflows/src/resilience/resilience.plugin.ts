import type { AgentFrameworkPlugin } from "../plugin.js";
import { createResilienceMiddleware } from "./resilience.middleware.js";
import { describeResilience, type ResilienceOptions, resolveResilienceOptions } from "./resilience.options.js";

/**
 * The plugin behind `usingResilience(options)`: retries with exponential backoff and jitter, a
 * per-attempt and a total timeout, a circuit breaker and an optional bulkhead per tool. Register it
 * before `usingToolResultMiddleware()` so it sees thrown errors and `ToolResult` values, not outcomes.
 *
 * - Retries a thrown error only when the tool is `idempotent` and `isTransient(error)` says so; retries
 *   `ToolResult.fail(..., { transient: true })` for any tool; never a non-transient failure or a
 *   cancellation. When attempts run out, the last error is rethrown or the last failed result returned.
 * - Each attempt gets `call.attempt` (1, 2, ...) and its own `signal`, aborted when the caller aborts,
 *   the attempt times out (reason: a `TimeoutError`) or the total timeout passes. A timed-out attempt
 *   is not waited for: the call throws `TimeoutError` at once (retried only for idempotent tools).
 *   `@AgentFunction({ timeoutMs })` replaces `attemptTimeoutMs` for that tool.
 * - Waits honor a larger `retryAfterMs` from the error; a wait that would outlast the total timeout
 *   is not started (the failure is reported instead). The caller's abort ends a wait at once.
 * - An open circuit throws `CircuitOpenError` without calling the tool; a full bulkhead throws
 *   `ToolError` with code `CAPACITY_EXCEEDED` (transient).
 *
 * Options are validated here, so a bad option fails when the factory is built.
 *
 * @example
 * ```ts
 * const plugin = resiliencePlugin({ retry: { maxAttempts: 4 }, attemptTimeoutMs: 5_000 });
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingPlugin(plugin).usingToolResultMiddleware();
 * ```
 */
export function resiliencePlugin(options?: ResilienceOptions): AgentFrameworkPlugin {
  const resolved = resolveResilienceOptions(options);
  const description = describeResilience(resolved);
  return {
    name: "resilience",
    describe: () => description,
    createMiddleware: () => createResilienceMiddleware(resolved),
  };
}
