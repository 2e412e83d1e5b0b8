import { abortReason, type ToolCallContext, type ToolMiddleware, type ToolRetryReport } from "@needlework/core";
import { answerSync, retriableReturnedFailure } from "@needlework/core/internal";
import { type AttemptOutcome, describeFailure, isTransientFailure } from "./attempt-outcome.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";
import { ResilienceEmitters } from "./resilience-events.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";
import { ResilientCall } from "./resilient-call.js";
import { decideAfterAttempt, type RetryDecision } from "./retry-decision.js";
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

  /**
   * Decides what follows attempt `attempt` of `call` (the call's value, its error, or another attempt
   * after `waitMs`); a retry is reported before it is returned.
   */
  const afterAttempt = (
    call: ToolCallContext,
    resilient: ResilientCall,
    outcome: AttemptOutcome,
    attempt: number,
  ): RetryDecision => {
    const callerAborted = call.callerSignal?.aborted === true;
    const idempotent = resilient.idempotent;
    // A returned failure value is retried by the same rules as a transient `ToolResult.fail`
    // (see retriableReturnedFailure); the tool's own value is what goes on when attempts run out.
    const returnedFailure =
      outcome.kind === "value" && !callerAborted
        ? retriableReturnedFailure(outcome.value, call.tool, idempotent)
        : undefined;
    const decision = decideAfterAttempt(
      outcome,
      { attempt, idempotent, callerAborted, deadline: resilient.deadline, returnedFailure },
      options,
    );
    if (decision.kind === "return") {
      // Attempts ran out (or time did) on a transient failed result: the call gives up with it.
      if (returnedFailure !== undefined) giveUp(emitters, call, attempt, { kind: "result", result: returnedFailure });
      else if (isTransientFailure(decision.value) && !callerAborted) giveUp(emitters, call, attempt, outcome);
      return decision;
    }
    if (decision.kind === "throw") {
      if (outcome.kind !== "ended") giveUp(emitters, call, attempt, outcome);
      return decision;
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
    return decision;
  };

  /** The attempts after the first answer, when it came as a promise or asked for another attempt. */
  const laterAttempts = async (
    call: ToolCallContext,
    resilient: ResilientCall,
    first: Promise<AttemptOutcome> | RetryDecision,
  ): Promise<unknown> => {
    try {
      let attempt = 1;
      let step = first instanceof Promise ? afterAttempt(call, resilient, await first, attempt) : first;
      while (step.kind === "retry") {
        if (step.waitMs > 0) {
          const ended = await resilient.sleep(step.waitMs);
          if (ended) throw ended.error;
        }
        call.attempt = ++attempt;
        const answered = resilient.attempt();
        step = afterAttempt(call, resilient, answered instanceof Promise ? await answered : answered, attempt);
      }
      if (step.kind === "throw") throw step.error;
      return step.value;
    } finally {
      resilient.finish();
    }
  };

  // Not an async function: when the first attempt is answered synchronously (the body returned a
  // plain value, see ResilientCall.body) and needs no retry, the call is answered with a settled
  // promise noted on the call, so the layers outside answer at once too: no promise per layer.
  return (call, next) => {
    const callerSignal = call.callerSignal;
    if (callerSignal?.aborted) return Promise.reject(abortReason(callerSignal));
    const attemptMs = call.tool.options.timeoutMs ?? options.attemptTimeoutMs;
    if (off && attemptMs === undefined && !callerSignal) {
      try {
        return next();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const resilient = new ResilientCall(call, next, environment, attemptMs, policies.for(call.name));
    resilient.begin();
    let step: RetryDecision;
    try {
      call.attempt = 1;
      const answered = resilient.attempt();
      if (answered instanceof Promise) return laterAttempts(call, resilient, answered);
      step = afterAttempt(call, resilient, answered, 1);
      if (step.kind === "retry") return laterAttempts(call, resilient, step);
    } catch (error) {
      resilient.finish();
      return Promise.reject(error);
    }
    resilient.finish();
    if (step.kind === "throw") return Promise.reject(step.error);
    return answerSync(call, step.value);
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
