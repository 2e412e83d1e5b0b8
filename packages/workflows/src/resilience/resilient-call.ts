import { keyedIdempotent, ownAbortAsTimeout } from "@needlework/core/internal";
import {
  abortReason,
  CircuitOpenError,
  type NextFunction,
  TimeoutError,
  type ToolCallContext,
  ToolError,
} from "@needlework/core";
import { AttemptCall, type AttemptOwner } from "./attempt-call.js";
import { type AttemptOutcome, breakerVerdict } from "./attempt-outcome.js";
import type { Deadline, DeadlineScheduler } from "./deadline-scheduler.js";
import type { ResilienceEmitters } from "./resilience-events.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";
import type { ToolPolicies } from "./tool-policies.js";

/** What every call of one middleware shares. @internal */
export interface CallEnvironment {
  readonly options: ResolvedResilienceOptions;
  readonly scheduler: DeadlineScheduler;
  readonly emitters: ResilienceEmitters;
}

const noRelease = (): void => {};

/** The tool's signal is aborted with the `TimeoutError` itself, also when the caller gets `OUTCOME_UNKNOWN`. */
function signalReasonOf(error: Error): unknown {
  return error instanceof TimeoutError ? error : error.cause;
}

const asValue = (value: unknown): AttemptOutcome => ({ kind: "value", value });
const asError = (error: unknown): AttemptOutcome => ({ kind: "error", error });

/**
 * One call through the resilience layer: its total deadline, the caller's abort, and its
 * attempts, each through the tool's bulkhead and breaker with its own time limit. A caller is
 * answered as soon as its attempt times out or it aborts; the tool body keeps its bulkhead slot
 * until it really settles. The retry loop lives in the middleware.
 *
 * An attempt arms one deadline, the earlier of its own time limit and the call's total deadline;
 * the body settling, that deadline and the caller's abort each try to answer the attempt, and the
 * first one does. Between attempts the retry decision never starts a wait that outlasts the total
 * deadline, so no deadline is armed for the call as a whole.
 *
 * @example
 * ```ts
 * const resilient = new ResilientCall(call, next, environment, 30_000, registry.for(call.name));
 * resilient.begin();
 * const outcome = await resilient.attempt();
 * resilient.finish();
 * ```
 * @internal
 */
export class ResilientCall implements AttemptOwner {
  /** When the total timeout passes (`performance.now()` time), or `Infinity`. */
  deadline = Infinity;
  private endedWith: AttemptOutcome | undefined;
  private ended: Promise<AttemptOutcome> | undefined;
  private resolveEnded: ((outcome: AttemptOutcome) => void) | undefined;
  /** Answers the running attempt; `undefined` once it is answered. */
  private answerAttempt: ((outcome: AttemptOutcome) => void) | undefined;
  private attemptDeadline: Deadline | undefined;
  private view: AttemptCall | undefined;
  /** Tool bodies started and not yet settled (an abandoned attempt's body may still run). */
  private bodiesRunning = 0;

  constructor(
    readonly call: ToolCallContext,
    private readonly next: NextFunction,
    private readonly env: CallEnvironment,
    private readonly attemptMs: number | undefined,
    private readonly policies: ToolPolicies,
  ) {}

  get idempotent(): boolean {
    return keyedIdempotent(this.call);
  }

  /** Sets the total deadline (from when the call started) and listens to the caller's signal until {@link finish}. */
  begin(): void {
    const total = this.env.options.totalTimeoutMs;
    if (total !== undefined) this.deadline = this.call.startedAt + total;
    this.call.callerSignal?.addEventListener("abort", this);
  }

  finish(): void {
    this.call.callerSignal?.removeEventListener("abort", this);
    this.view?.release();
  }

  /** The caller's signal aborted: the call ends with its reason at once. */
  handleEvent(): void {
    const signal = this.call.callerSignal!;
    this.end(abortReason(signal), signal.reason);
  }

  /** The signal an attempt follows aborted (the caller's, or one an outer layer set). */
  parentAborted(): void {
    if (this.call.callerSignal?.aborted) this.handleEvent();
  }

  /**
   * Runs one attempt; never rejects. The outcome comes back as it is (no promise) when the attempt
   * was answered synchronously: the call had ended, the breaker refused it, or the body returned a
   * plain value (see {@link ResilientCall.body}).
   */
  attempt(): AttemptOutcome | Promise<AttemptOutcome> {
    if (this.endedWith) return this.endedWith;
    return this.policies.bulkhead ? this.attemptWithSlot() : this.admitted(noRelease);
  }

  private async attemptWithSlot(): Promise<AttemptOutcome> {
    const release = await this.acquireSlot();
    return typeof release === "function" ? this.admitted(release) : release;
  }

  /** Holding a bulkhead slot (or needing none): checks the deadline and the breaker, then runs the body. */
  private admitted(release: () => void): AttemptOutcome | Promise<AttemptOutcome> {
    const now = performance.now();
    if (this.endedWith || this.deadline <= now) {
      release();
      if (!this.endedWith) this.onTotalTimeout(); // the slot came exactly at the deadline
      return this.endedWith!;
    }
    const admission = this.policies.breaker?.admit() ?? "closed";
    if (typeof admission === "object") return this.afterTrial(admission, release);
    if (admission === "open") {
      release(); // the breaker refused the call: the body never started
      return asError(this.circuitOpen());
    }
    return this.body(release, now, admission);
  }

  /** Another call is the half-open circuit's trial: waits for it (or this call's end), then asks again. */
  private async afterTrial(trial: Promise<void>, release: () => void): Promise<AttemptOutcome> {
    await Promise.race([trial, this.endedPromise()]);
    if (!this.endedWith) return this.admitted(release);
    release();
    return this.endedWith;
  }

  /** Waits `ms` between attempts; the caller's abort cuts it short. */
  async sleep(ms: number): Promise<{ readonly error: unknown } | undefined> {
    if (this.endedWith) return this.endedWith as { error: unknown };
    let deadline: Deadline | undefined;
    const slept = new Promise<undefined>(
      (resolve) => (deadline = this.env.scheduler.after(ms, () => resolve(undefined))),
    );
    try {
      return (await Promise.race([slept, this.endedPromise()])) as { error: unknown } | undefined;
    } finally {
      deadline!.cancel();
    }
  }

  private endedPromise(): Promise<AttemptOutcome> {
    if (this.endedWith) return Promise.resolve(this.endedWith);
    return (this.ended ??= new Promise((resolve) => (this.resolveEnded = resolve)));
  }

  private end(error: unknown, signalReason: unknown): void {
    if (this.endedWith) return;
    const ended: AttemptOutcome = { kind: "ended", error };
    this.endedWith = ended;
    this.resolveEnded?.(ended);
    this.view?.abort(signalReason);
    this.answerAttempt?.(ended);
  }

  private onTotalTimeout(): void {
    const ms = this.env.options.totalTimeoutMs ?? 0;
    const error = this.timeoutError(`did not finish within its total timeout of ${ms} ms`, ms);
    this.end(error, signalReasonOf(error));
  }

  /**
   * A `TimeoutError`; while the body of a tool neither `idempotent` nor `readOnly` runs,
   * `OUTCOME_UNKNOWN` (its effect may have happened).
   */
  private timeoutError(what: string, timeoutMs: number): Error {
    const { name: toolName, callId } = this.call;
    const timeout = new TimeoutError(`Tool '${toolName}' ${what}.`, { toolName, callId, timeoutMs });
    if (this.idempotent || this.call.tool.options.readOnly === true || this.bodiesRunning === 0) return timeout;
    return new ToolError(`Tool '${toolName}' ${what}; it may or may not have taken effect.`, {
      code: "OUTCOME_UNKNOWN",
      transient: false,
      suggestion: "Do not call it again blindly: check whether the action took effect first.",
      toolName,
      callId,
      cause: timeout,
    });
  }

  /** Waits for a bulkhead slot; the caller's abort and the total deadline cut the wait short. */
  private async acquireSlot(): Promise<(() => void) | AttemptOutcome> {
    const bulkhead = this.policies.bulkhead;
    if (!bulkhead) return noRelease;
    const free = bulkhead.tryAcquire();
    if (free) return free;
    if (!bulkhead.canQueue()) return asError(this.capacityExceeded());
    let withdraw = noRelease;
    const granted = new Promise<() => void>((resolve) => {
      withdraw = bulkhead.enqueue((release) => (this.endedWith ? release() : resolve(release)));
    });
    const total =
      this.deadline === Infinity ? undefined : this.env.scheduler.at(this.deadline, () => this.onTotalTimeout());
    try {
      const won = await Promise.race([granted, this.endedPromise()]);
      if (typeof won === "function") return won;
      withdraw();
      return won;
    } finally {
      total?.cancel();
    }
  }

  /**
   * Runs the tool body once. The body holds its bulkhead slot until it really settles, even when
   * its caller was answered earlier (a timeout, an abort); the breaker counts the attempt's answer.
   */
  private body(
    release: () => void,
    now: number,
    admission: "closed" | "trial",
  ): AttemptOutcome | Promise<AttemptOutcome> {
    const view = (this.view = new AttemptCall(this.call, this));
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(this.next(view));
    } catch (error) {
      running = Promise.reject(error);
    }
    // The fast path, for the common case: the body returned a plain value and what came back is the
    // invoker's own settled promise for it (no layer in between waited or changed it). The body has
    // settled, so nothing can time out, abort or race it: no deadline is armed, no promise made, and
    // the breaker's bookkeeping is its field write. A body that aborted the call while it ran still
    // takes the path below, which answers with the call's end.
    if (running === view.returnedSync && !this.endedWith) {
      const outcome = asValue(view.syncValue);
      release();
      view.release();
      this.policies.breaker?.record(admission, breakerVerdict(outcome, this.call.tool));
      return outcome;
    }
    this.bodiesRunning++;
    const limit = this.attemptMs;
    const attemptEnd = limit === undefined ? Infinity : now + limit;
    return new Promise((resolve) => {
      const answer = (outcome: AttemptOutcome): void => {
        if (this.answerAttempt !== answer) return; // answered already
        this.answerAttempt = undefined;
        this.attemptDeadline?.cancel();
        this.attemptDeadline = undefined;
        view.release();
        this.policies.breaker?.record(admission, breakerVerdict(outcome, this.call.tool));
        resolve(outcome);
      };
      this.answerAttempt = answer;
      const settled = (outcome: AttemptOutcome): void => {
        this.bodiesRunning--;
        release();
        answer(outcome);
      };
      running.then(
        (value) => settled(asValue(value)),
        // Not aborted by the caller nor by an attempt timeout (both answered already): the tool's own timeout.
        (error: unknown) => settled(asError(ownAbortAsTimeout(error, this.call.callerSignal))),
      );
      if (this.endedWith) return answer(this.endedWith); // the call ended while the body started
      if (attemptEnd < this.deadline)
        this.attemptDeadline = this.env.scheduler.at(attemptEnd, () => answer(this.attemptTimedOut(view, limit!)));
      else if (this.deadline !== Infinity)
        this.attemptDeadline = this.env.scheduler.at(this.deadline, () => this.onTotalTimeout());
    });
  }

  private attemptTimedOut(view: AttemptCall, ms: number): AttemptOutcome {
    const error = this.timeoutError(`attempt ${this.call.attempt} timed out after ${ms} ms`, ms);
    view.abort(signalReasonOf(error));
    return asError(error);
  }

  private capacityExceeded(): ToolError {
    const { name: tool, callId, runId } = this.call;
    this.env.emitters.bulkheadReject.emit({ callId, runId, tool });
    return new ToolError("The tool is at capacity; try again shortly.", {
      code: "CAPACITY_EXCEEDED",
      transient: true,
      suggestion: "Wait a moment before calling this tool again, or continue with other work.",
      toolName: tool,
      callId,
    });
  }

  private circuitOpen(): CircuitOpenError {
    const { name: toolName, callId } = this.call;
    const message = `Tool '${toolName}' is temporarily unavailable: its circuit is open after repeated failures.`;
    return new CircuitOpenError(message, { toolName, callId });
  }
}
