import {
  abortReason,
  CircuitOpenError,
  type NextFunction,
  TimeoutError,
  type ToolCallContext,
  ToolError,
} from "@needlework/core";
import { BrokenCircuitError, IsolatedCircuitError } from "cockatiel";
import { AttemptCall, type AttemptOwner } from "./attempt-call.js";
import { type AttemptOutcome, isBreakerFailure } from "./attempt-outcome.js";
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

/** An attempt outcome the breaker must neither count nor reset on (a deliberate answer, the call's end). */
class Uncounted {
  constructor(readonly outcome: AttemptOutcome) {}
}

function throwIfUncounted(outcome: AttemptOutcome): AttemptOutcome {
  if (outcome.kind === "value" || isBreakerFailure(outcome)) return outcome;
  throw new Uncounted(outcome);
}
const asValue = (value: unknown): AttemptOutcome => ({ kind: "value", value });
const asError = (error: unknown): AttemptOutcome => ({ kind: "error", error });

/**
 * One call through the resilience layer: its total deadline, the caller's abort, and its
 * attempts, each through the tool's bulkhead and breaker with its own time limit. A caller is
 * answered as soon as its attempt times out or it aborts; the tool body keeps its bulkhead slot
 * until it really settles. The retry loop lives in the middleware.
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
  private totalDeadline: Deadline | undefined;
  private view: AttemptCall | undefined;
  private bodyRunning = false;

  constructor(
    readonly call: ToolCallContext,
    private readonly next: NextFunction,
    private readonly env: CallEnvironment,
    private readonly attemptMs: number | undefined,
    private readonly policies: ToolPolicies,
  ) {}

  get idempotent(): boolean {
    return this.call.tool.options.idempotent === true;
  }

  /** Arms the total deadline and listens to the caller's signal until {@link finish}. */
  begin(): void {
    const total = this.env.options.totalTimeoutMs;
    if (total !== undefined) {
      this.deadline = performance.now() + total;
      this.totalDeadline = this.env.scheduler.at(this.deadline, () => this.onTotalTimeout());
    }
    this.call.callerSignal?.addEventListener("abort", this);
  }

  finish(): void {
    this.totalDeadline?.cancel();
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

  /** Runs one attempt; never rejects. */
  async attempt(): Promise<AttemptOutcome> {
    if (this.endedWith) return this.endedWith;
    const release = this.policies.bulkhead ? await this.acquireSlot() : noRelease;
    if (typeof release !== "function") return release;
    if (this.endedWith || this.deadline <= performance.now()) {
      release();
      if (!this.endedWith) this.onTotalTimeout(); // the slot came exactly at the deadline
      return this.endedWith!;
    }
    const breaker = this.policies.breaker;
    if (!breaker) return this.body(release);
    try {
      return await breaker.execute(() => this.body(release).then(throwIfUncounted));
    } catch (error) {
      if (error instanceof Uncounted) return error.outcome;
      release(); // the breaker refused the call: the body never started
      return asError(this.translate(error));
    }
  }

  /** Waits `ms` between attempts; the end of the call (abort, total timeout) cuts it short. */
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
    this.endedWith = { kind: "ended", error };
    this.resolveEnded?.(this.endedWith);
    this.view?.abort(signalReason);
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
    if (this.idempotent || this.call.tool.options.readOnly === true || !this.bodyRunning) return timeout;
    return new ToolError(`Tool '${toolName}' ${what}; it may or may not have taken effect.`, {
      code: "OUTCOME_UNKNOWN",
      transient: false,
      suggestion: "Do not call it again blindly: check whether the action took effect first.",
      toolName,
      callId,
      cause: timeout,
    });
  }

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
    const won = await Promise.race([granted, this.endedPromise()]);
    if (typeof won === "function") return won;
    withdraw();
    return won;
  }

  private body(release: () => void): Promise<AttemptOutcome> {
    const view = (this.view = new AttemptCall(this.call, this));
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(this.next(view));
    } catch (error) {
      running = Promise.reject(error);
    }
    this.bodyRunning = true;
    // The slot is held until the body really settles, even when its caller was answered earlier.
    const settled = running.then(asValue, asError).finally(() => {
      this.bodyRunning = false;
      release();
    });
    const racers: Array<Promise<AttemptOutcome>> = [settled];
    let attemptDeadline: Deadline | undefined;
    const limit = this.attemptMs;
    if (limit !== undefined && performance.now() + limit < this.deadline) {
      racers.push(
        new Promise(
          (resolve) =>
            (attemptDeadline = this.env.scheduler.after(limit, () => resolve(this.attemptTimedOut(view, limit)))),
        ),
      );
    }
    if (this.deadline !== Infinity || this.call.callerSignal) racers.push(this.endedPromise());
    if (racers.length === 1) return settled;
    return Promise.race(racers).finally(() => {
      attemptDeadline?.cancel();
      view.release();
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

  private translate(error: unknown): unknown {
    if (!(error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError)) return error;
    const { name: toolName, callId } = this.call;
    const message = `Tool '${toolName}' is temporarily unavailable: its circuit is open after repeated failures.`;
    return new CircuitOpenError(message, { toolName, callId, cause: error });
  }
}
