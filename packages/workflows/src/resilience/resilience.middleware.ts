import { abortReason, type ToolMiddleware, type ToolRetryReport } from "@needlework/core";
import { retriableReturnedFailure } from "@needlework/core/internal";
import { describeFailure, isTransientFailure } from "./attempt-outcome.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";
import { ResilienceEmitters } from "./resilience-events.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";
import { ResilientCall } from "./resilient-call.js";
import { decideAfterAttempt } from "./retry-decision.js";
import { ToolPolicyRegistry } from "./tool-policies.js";

// Retry and timeouts are written here rather than taken from cockatiel: its retry delay does not
// listen to the abort signal (a cancelled call would sit out the backoff), and its timeout policy
// makes a timer and an AbortController per call; here one scheduler serves every deadline of the
// middleware. The breaker and the bulkhead say why they are ours in circuit-breaker.ts and bulkhead.ts.

/**
 * The resilience middleware over validated options (see `createResiliencePlugin` for the
 * behaviour): for each call, attempts through {@link ResilientCall} and the retry decision of
 * {@link decideAfterAttempt}, with the events raised on `emitters`.
 *
 * @example
 * ```ts
 * const middleware = createResilienceMiddleware(resolveResilienceOptions({ retry: { maxAttempts: 2 } }));
 * ```
 * @internal
 */
export function createResilienceMiddleware(
  options: ResolvedResilienceOptions,
  emitters: ResilienceEmitters = new ResilienceEmitters(),
): ToolMiddleware {
  const environment = { options, scheduler: new DeadlineScheduler(), emitters };
  const policies = new ToolPolicyRegistry(options, emitters);
  const off =
    options.maxAttempts === 1 &&
    options.attemptTimeoutMs === undefined &&
    options.totalTimeoutMs === undefined &&
    !options.circuitBreaker &&
    !options.bulkhead;

  return async (call, next) => {
    const callerSignal = call.callerSignal;
    if (callerSignal?.aborted) throw abortReason(callerSignal);
    const tool = call.tool;
    const attemptMs = tool.options.timeoutMs ?? options.attemptTimeoutMs;
    if (off && attemptMs === undefined && !callerSignal) return next();

    const resilient = new ResilientCall(call, next, environment, attemptMs, policies.for(call.name));
    resilient.begin();
    try {
      for (let attempt = 1; ; attempt++) {
        call.attempt = attempt;
        // Answered synchronously when the body returned a plain value (see ResilientCall.body).
        const answered = resilient.attempt();
        const outcome = answered instanceof Promise ? await answered : answered;
        // A returned failure value is retried by the same rules as a transient `ToolResult.fail`
        // (see retriableReturnedFailure); the tool's own value is what goes on when attempts run out.
        const returnedFailure =
          outcome.kind === "value" && callerSignal?.aborted !== true
            ? retriableReturnedFailure(outcome.value, tool, resilient.idempotent)
            : undefined;
        const decision = decideAfterAttempt(
          outcome,
          {
            attempt,
            idempotent: resilient.idempotent,
            callerAborted: callerSignal?.aborted === true,
            deadline: resilient.deadline,
            ...(returnedFailure === undefined ? {} : { returnedFailure }),
          },
          options,
        );
        if (decision.kind === "return") {
          // Attempts ran out (or time did) on a transient failed result: the call gives up with it.
          if (returnedFailure !== undefined)
            giveUp(emitters, call, attempt, { kind: "result", result: returnedFailure });
          else if (isTransientFailure(decision.value) && callerSignal?.aborted !== true)
            giveUp(emitters, call, attempt, outcome);
          return decision.value;
        }
        if (decision.kind === "throw") {
          if (outcome.kind !== "ended") giveUp(emitters, call, attempt, outcome);
          throw decision.error;
        }
        const failure = describeFailure(decision.reason);
        // Kept on the outcome (`metadata.attemptErrors`), so the journal and the inspector show each attempt.
        call.noteAttemptError?.(failure.errorCode ?? "TOOL_ERROR");
        // The retry reaches the call's own run through its context: no plugin-wide emitter.
        const retry = {
          callId: call.callId,
          runId: call.runId,
          tool: call.name,
          attempt,
          delayMs: decision.waitMs,
          ...failure,
        };
        reportRetry(call, { type: "tool-retry", ...retry });
        // The deprecated plugin-wide `onRetry`, for listeners written before runs had their own events.
        if (emitters.retry.listening) emitters.retry.emit(retry);
        if (decision.waitMs > 0) {
          const ended = await resilient.sleep(decision.waitMs);
          if (ended) throw ended.error;
        }
      }
    } finally {
      resilient.finish();
    }
  };
}

/** Hands a retry to the call's context; a report that throws never changes the call. */
function reportRetry(call: { report?: ((event: ToolRetryReport) => void) | undefined }, event: ToolRetryReport): void {
  try {
    call.report?.(event);
  } catch {
    // Observing must never change a call.
  }
}

function giveUp(
  emitters: ResilienceEmitters,
  call: { callId: string; runId: string; name: string },
  attempts: number,
  outcome: Parameters<typeof describeFailure>[0],
): void {
  if (!emitters.giveUp.listening) return;
  const { errorCode } = describeFailure(outcome);
  emitters.giveUp.emit({
    callId: call.callId,
    runId: call.runId,
    tool: call.name,
    attempts,
    ...(errorCode ? { errorCode } : {}),
  });
}
