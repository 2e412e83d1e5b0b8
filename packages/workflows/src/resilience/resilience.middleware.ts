import {
  abortReason,
  CircuitOpenError,
  type FailToolResult,
  isToolResult,
  NeedleworkError,
  retryAfterMsOf,
  TimeoutError,
  type ToolCallContext,
  ToolError,
  type NextFunction,
  type ToolMiddleware,
} from "@needlework/core";
import {
  BrokenCircuitError,
  bulkhead as createBulkhead,
  type BulkheadPolicy,
  BulkheadRejectedError,
  circuitBreaker as createCircuitBreaker,
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  handleWhen,
  IsolatedCircuitError,
} from "cockatiel";
import { AttemptCall, type AttemptOwner } from "./attempt-call.js";
import { notifyRetry } from "../observability/retry-listener.js";
import { backoffDelayMs } from "./backoff.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";

// Retry and timeouts are written here rather than taken from cockatiel: its retry delay does not
// listen to the abort signal (a cancelled call would sit out the backoff), and its timeout policy
// costs about 18 µs a call (measured) against about 0.3 µs for one setTimeout. Breaker and bulkhead
// are cockatiel's. Per call there is at most one timer at a time, none for a tool that settles at
// once (the attempt's timer is armed only if the tool is still running two microtasks later), and
// no AbortController or abort listener unless the tool reads its signal or the call waits (backoff,
// bulkhead queue).

/** The caller aborted: carried through cockatiel (which must not count it) and unwrapped outside. */
class Cancellation {
  constructor(readonly reason: Error) {}
}

/** What an attempt that rejected settles to (see the retry loop). */
class AttemptFailure {
  constructor(readonly error: unknown) {}
  static of(this: void, error: unknown): AttemptFailure {
    return new AttemptFailure(error);
  }
}

/** The decision to end the call by throwing `error` (see the retry loop). */
class Thrown {
  constructor(readonly error: unknown) {}
}

/** The decision to try again after `wait` ms (see the retry loop). */
class Retry {
  constructor(readonly wait: number) {}
}

/** Thrown into a bulkhead slot that frees up after its call already gave up (total timeout, abort). */
const ABANDONED = Object.freeze({ abandoned: true });

/** Resolved once: `.then` on it queues a microtask. */
const SETTLED = Promise.resolve();

/** What the model reads when a tool's bulkhead is full. */
const CAPACITY_EXCEEDED_MESSAGE = "The tool is at capacity; try again shortly.";

/** A `ToolResult.fail(..., { transient: true })`. */
function isTransientFailure(value: unknown): value is FailToolResult {
  return isToolResult(value) && value.kind === "fail" && value.error.transient;
}

/**
 * What the breaker counts as a failure: thrown errors except cancellations and deliberate
 * non-transient `ToolError`s (a business answer, like a non-transient `ToolResult.fail`), plus
 * transient failed results. Timeouts count.
 */
function isBreakerFailure(error: unknown): boolean {
  if (error instanceof Cancellation || error === ABANDONED) return false;
  return !(NeedleworkError.isInstance(error) && (error as { transient?: unknown }).transient === false);
}

function classify(isTransient: (error: unknown) => boolean, error: unknown): boolean {
  try {
    return isTransient(error) === true;
  } catch {
    return false; // a classifier that throws must not turn a failure into a crash
  }
}

/**
 * The per-call state: at most one timer (attempt deadline, total deadline or backoff), the pending
 * waits it can cut short, and the current attempt's view of the call. It listens to the caller's
 * signal only while it waits on its own (backoff, bulkhead queue); during an attempt the attempt's
 * view listens, once the tool reads its signal.
 */
class ResilientCall implements AttemptOwner {
  timer: ReturnType<typeof setTimeout> | undefined;
  timerIsTotal = false;
  rejectAttempt: ((error: unknown) => void) | undefined;
  rejectWait: ((error: unknown) => void) | undefined;
  rejectSleep: ((error: unknown) => void) | undefined;
  view: AttemptCall | undefined;
  deadline = Infinity;
  /** Set when the total timeout passed: the call ends with it. */
  totalError: TimeoutError | undefined;
  /** The call gave up (total timeout, caller abort) or returned: a late bulkhead slot must not run the tool. */
  closed = false;
  bodyStarted = false;
  listening = false;
  readonly timed: boolean;
  /** When the current attempt's body started: its timer is armed only once the tool is still running a moment later. */
  attemptStartedAt = 0;
  /**
   * The clock read at construction, valid while the first attempt starts synchronously inside
   * `start()` (a closed breaker runs the body at once): saves two clock reads per call.
   */
  private freshNow: number | undefined;

  constructor(
    readonly call: ToolCallContext,
    readonly next: NextFunction,
    readonly options: ResolvedResilienceOptions,
    readonly attemptMs: number | undefined,
    readonly breaker: CircuitBreakerPolicy | undefined,
    readonly bulkhead: BulkheadPolicy | undefined,
  ) {
    this.timed = attemptMs !== undefined || options.totalTimeoutMs !== undefined;
    if (this.timed) {
      const now = performance.now();
      this.freshNow = now;
      if (options.totalTimeoutMs !== undefined) this.deadline = now + options.totalTimeoutMs;
    }
  }

  /** Starts one attempt through bulkhead and breaker; the promise rejects early on timeout or cancellation. */
  start(): Promise<unknown> {
    this.bodyStarted = false;
    const pending = this.bulkhead ? this.bulkhead.execute((this.gated ??= () => (this.breaker ? this.breaker.execute(this.body) : this.body()))) : this.breaker ? this.breaker.execute(this.body) : this.body();
    this.freshNow = undefined; // a body that starts later (queued, half-open trial) reads the clock
    // Still queued in the bulkhead or behind a half-open trial call: the total timeout and the caller bound the wait.
    if (this.bodyStarted || !(this.timed || this.call.callerSignal)) return pending;
    if (this.deadline !== Infinity) this.arm(this.deadline - performance.now(), true);
    this.listen();
    return new Promise((resolve, reject) => {
      this.rejectWait = reject;
      pending.then(resolve, reject);
    });
  }

  /** Cleans up after an attempt, however it ended. */
  end(): void {
    this.clearTimer();
    this.unlisten();
    this.rejectAttempt = undefined;
    this.rejectWait = undefined;
    if (this.view) {
      this.view.release();
      this.view = undefined;
    }
  }

  // Bound functions are made when first needed: most calls use only `body`.
  private gated: (() => Promise<unknown>) | undefined;
  private deadlineHandler: (() => void) | undefined;

  readonly body = (): Promise<unknown> => {
    if (this.closed) return Promise.reject(ABANDONED);
    if (!this.timed) {
      this.bodyStarted = true;
      return this.next(this.call);
    }
    const now = this.freshNow ?? performance.now();
    this.freshNow = undefined;
    if (this.deadline !== Infinity && this.deadline <= now) {
      // A bulkhead slot (or a late timer) came exactly at the deadline: do not start the tool.
      this.timerIsTotal = true;
      this.clearTimer();
      this.onDeadline();
      return Promise.reject(ABANDONED);
    }
    this.bodyStarted = true;
    this.unlisten(); // from here the attempt's view listens, if the tool reads its signal
    const view = (this.view = new AttemptCall(this.call, this));
    this.attemptStartedAt = now;
    const pending = this.next(view);
    // Tools may ignore their signal: stop waiting for them when the attempt times out or the caller aborts.
    // A setTimeout plus clearTimeout costs about 0.3 µs, more than the rest of this layer, and most
    // tools settle at once: the attempt's timer is armed one microtask later, only if the tool is
    // still running, for what is left of the attempt's time (so it fires when it would have).
    return new Promise((resolve, reject) => {
      let settled = false;
      this.rejectAttempt = reject;
      pending.then(
        (value) => {
          settled = true;
          resolve(value);
        },
        (error: unknown) => {
          settled = true;
          reject(error);
        },
      );
      // Reactions on a resolved promise: cheaper than queueMicrotask, which makes an AsyncResource per
      // call in Node. The check looks twice, two microtasks apart, so that a tool which threw (its
      // rejection comes one microtask late, see the invoker) or awaited once needs no timer either.
      let looks = 0;
      const check = (): void => {
        if (settled || this.view !== view || this.closed) return;
        if (++looks === 1) void SETTLED.then(check);
        else this.armAttemptTimer();
      };
      void SETTLED.then(check);
    });
  };

  /** Arms the timer of the running attempt: its own time limit, or the call's if that ends first. */
  private armAttemptTimer(): void {
    const now = performance.now();
    const startedAt = this.attemptStartedAt;
    // Rounded so that attempts share Node's timer list for their duration (under fake timers no time passes here).
    const attemptLeft = this.attemptMs === undefined ? 0 : Math.round(this.attemptMs - (now - startedAt));
    if (this.deadline === Infinity) {
      this.arm(attemptLeft, false);
      return;
    }
    // The choice is the one made when the attempt started: its own limit, or the call's if that ends first.
    if (this.attemptMs !== undefined && this.attemptMs < this.deadline - startedAt) this.arm(attemptLeft, false);
    else this.arm(this.deadline - now, true);
  }

  private arm(ms: number, total: boolean): void {
    this.clearTimer();
    this.timerIsTotal = total;
    this.timer = setTimeout((this.deadlineHandler ??= () => this.onDeadline()), ms > 0 ? ms : 0);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** The attempt's or the call's time is up (its timer fired, or a queued body started too late). */
  onDeadline(): void {
    this.timer = undefined;
    const callerSignal = this.call.callerSignal;
    if (callerSignal?.aborted) {
      // The caller aborted while a tool that ignores its signal ran: that is cancellation, not a timeout.
      this.cancel(callerSignal);
      return;
    }
    const total = this.timerIsTotal;
    const { name, callId } = this.call;
    const timeoutMs = (total ? this.options.totalTimeoutMs : this.attemptMs) ?? 0;
    const error = total
      ? new TimeoutError(`Tool '${name}' did not finish within its total timeout of ${timeoutMs} ms.`, { toolName: name, callId, timeoutMs })
      : new TimeoutError(`Tool '${name}' attempt ${this.call.attempt} timed out after ${timeoutMs} ms.`, { toolName: name, callId, timeoutMs });
    if (total) {
      this.totalError = error;
      this.closed = true;
    }
    this.rejectAttempt?.(error);
    this.rejectWait?.(error);
    this.view?.abort(error);
  }

  /** The attempt's parent signal aborted (the attempt's view saw it). */
  parentAborted(): void {
    const callerSignal = this.call.callerSignal;
    if (callerSignal?.aborted) this.cancel(callerSignal);
  }

  /** The caller's signal aborted while this call waited on its own. */
  handleEvent(): void {
    this.cancel(this.call.callerSignal!);
  }

  private cancel(callerSignal: AbortSignal): void {
    this.closed = true;
    const reason = abortReason(callerSignal);
    const cancellation = new Cancellation(reason);
    this.rejectAttempt?.(cancellation);
    this.rejectWait?.(cancellation);
    this.rejectSleep?.(reason);
    this.view?.abort(callerSignal.reason);
  }

  private listen(): void {
    if (!this.listening && this.call.callerSignal) {
      this.call.callerSignal.addEventListener("abort", this);
      this.listening = true;
    }
  }

  private unlisten(): void {
    if (this.listening) {
      this.call.callerSignal!.removeEventListener("abort", this);
      this.listening = false;
    }
  }

  /** Waits between attempts; the caller's abort ends the wait at once. */
  async sleep(ms: number): Promise<void> {
    this.listen();
    try {
      await new Promise<void>((resolve, reject) => {
        this.rejectSleep = reject;
        this.timer = setTimeout(resolve, ms);
      });
    } finally {
      this.rejectSleep = undefined;
      this.clearTimer(); // already fired unless the caller aborted the wait
      this.unlisten();
    }
  }

  finish(): void {
    this.closed = true;
    this.clearTimer();
    this.unlisten();
  }

  translate(error: unknown): unknown {
    const { name: toolName, callId } = this.call;
    if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
      return new CircuitOpenError(`Tool '${toolName}' is temporarily unavailable: its circuit is open after repeated failures.`, { toolName, callId, cause: error });
    }
    if (error instanceof BulkheadRejectedError) {
      return new ToolError(CAPACITY_EXCEEDED_MESSAGE, {
        code: "CAPACITY_EXCEEDED",
        transient: true,
        suggestion: "Wait a moment before calling this tool again, or continue with other work.",
        toolName,
        callId,
        cause: error,
      });
    }
    return error;
  }
}

/**
 * The resilience middleware over validated options (see `resiliencePlugin` for the behaviour).
 * Breakers and bulkheads are created lazily, one per tool name, and live as long as the middleware.
 *
 * @example
 * ```ts
 * const middleware = createResilienceMiddleware(resolveResilienceOptions({ retry: { maxAttempts: 2 } }));
 * ```
 * @internal
 */
export function createResilienceMiddleware(options: ResolvedResilienceOptions): ToolMiddleware {
  const breakers = new Map<string, CircuitBreakerPolicy>();
  const bulkheads = new Map<string, BulkheadPolicy>();
  const breakerPolicy = options.circuitBreaker ? handleWhen(isBreakerFailure).orWhenResult(isTransientFailure) : undefined;

  const breakerFor = (name: string): CircuitBreakerPolicy | undefined => {
    if (!options.circuitBreaker || !breakerPolicy) return undefined;
    let breaker = breakers.get(name);
    if (!breaker) {
      breaker = createCircuitBreaker(breakerPolicy, {
        halfOpenAfter: options.circuitBreaker.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(options.circuitBreaker.consecutiveFailures),
      });
      breakers.set(name, breaker);
    }
    return breaker;
  };

  const bulkheadFor = (name: string): BulkheadPolicy | undefined => {
    if (!options.bulkhead) return undefined;
    let bulkhead = bulkheads.get(name);
    if (!bulkhead) {
      bulkhead = createBulkhead(options.bulkhead.limit, options.bulkhead.queue);
      bulkheads.set(name, bulkhead);
    }
    return bulkhead;
  };

  // Everything off (retry: false, no timeouts, no breaker, no bulkhead): nothing to do per call.
  const passThrough = options.maxAttempts === 1 && options.attemptTimeoutMs === undefined && options.totalTimeoutMs === undefined && !breakerPolicy && !options.bulkhead;

  /**
   * Decides what follows an attempt that settled to `settled` (an AttemptFailure when it rejected):
   * the value to return, a {@link Thrown} error to throw, or a {@link Retry} with the wait before
   * the next attempt. It returns rather than throws so that a failure is thrown once, by the caller.
   */
  const afterAttempt = (state: ResilientCall, attempt: number, settled: unknown): unknown => {
    const { call } = state;
    const callerSignal = call.callerSignal;
    let value = settled;
    let error: unknown;
    let threw = false;
    if (value instanceof AttemptFailure) {
      const caught = value.error;
      if (caught instanceof Cancellation) return new Thrown(caught.reason);
      if (callerSignal?.aborted) return new Thrown(abortReason(callerSignal));
      if (state.totalError) return new Thrown(state.totalError);
      threw = true;
      error = state.translate(caught);
      value = undefined;
    }
    if (!threw) {
      // A result that arrived although the caller aborted is returned as it is, never retried.
      if (!isTransientFailure(value) || callerSignal?.aborted) return value;
    } else if (call.tool.options.idempotent !== true || !classify(options.isTransient, error)) {
      return new Thrown(error);
    }
    if (attempt >= options.maxAttempts) {
      if (threw) return new Thrown(error);
      return value;
    }

    let wait = backoffDelayMs(attempt, options, options.random);
    const failed = value as FailToolResult;
    const retryAfterMs = threw ? retryAfterMsOf(error) : (retryAfterMsOf(failed.exception) ?? retryAfterMsOf(failed.error.data));
    if (retryAfterMs !== undefined && retryAfterMs > wait) wait = retryAfterMs;
    // Report the failure now rather than wait for nothing: when the next attempt could not start
    // before the total timeout, or (without a total timeout) when a retry-after exceeds maxDelayMs.
    const giveUp = state.deadline === Infinity ? wait > options.maxDelayMs : wait >= state.deadline - performance.now();
    if (giveUp) {
      if (threw) return new Thrown(error);
      return value;
    }
    notifyRetry(call, { attempt, delayMs: wait, reason: threw ? error : value }); // diagnostics: a span event per retry
    return new Retry(wait);
  };

  /** Waits and runs attempts 2, 3, ... until one settles the call; finishes the call however it ends. */
  const retryLoop = async (state: ResilientCall, firstWait: number): Promise<unknown> => {
    try {
      let wait = firstWait;
      for (let attempt = 2; ; attempt++) {
        if (wait > 0) await state.sleep(wait);
        state.call.attempt = attempt;
        let settled: unknown;
        try {
          // A failed attempt arrives as an AttemptFailure instead of being rethrown here: a throw costs
          // about 0.3 µs (measured), and the error is usually thrown once more anyway.
          settled = await state.start().then(undefined, AttemptFailure.of);
        } finally {
          state.end();
        }
        const next = afterAttempt(state, attempt, settled);
        if (next instanceof Thrown) throw next.error;
        if (!(next instanceof Retry)) return next;
        wait = next.wait;
      }
    } finally {
      state.finish();
    }
  };

  // Not an async function: the first attempt settles in one reaction, and only a retry enters the
  // async loop. An async function and its await cost about 0.1 µs a call, and one that fails before
  // its first await rejects a promise nobody holds yet, which Node's unhandled-rejection tracking
  // charges about 1 µs for (measured). Every exit is still a promise.
  return (call, next) => {
    const callerSignal = call.callerSignal;
    if (callerSignal?.aborted) return Promise.reject(abortReason(callerSignal));
    const tool = call.tool;
    if (passThrough && tool.options.timeoutMs === undefined) {
      try {
        return Promise.resolve(next());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const state = new ResilientCall(call, next, options, tool.options.timeoutMs ?? options.attemptTimeoutMs, breakerFor(call.name), bulkheadFor(call.name));
    call.attempt = 1;
    let first: Promise<unknown>;
    try {
      first = state.start();
    } catch (error) {
      first = Promise.reject(error);
    }
    // What the first attempt settled to: the value, a Thrown, or the retry loop's promise.
    const settle = (settled: unknown): unknown => {
      state.end();
      let after: unknown;
      try {
        after = afterAttempt(state, 1, settled);
      } catch (error) {
        state.finish(); // a `random` option that throws still finishes the call
        throw error;
      }
      if (after instanceof Retry) return retryLoop(state, after.wait);
      state.finish();
      return after;
    };
    return first.then(
      (value) => {
        const after = settle(value);
        if (after instanceof Thrown) throw after.error;
        return after;
      },
      (caught: unknown) => {
        const after = settle(new AttemptFailure(caught));
        if (!(after instanceof Thrown)) return after;
        // The attempt's own error, unchanged (the usual case): hand on the rejected promise itself,
        // which passes the rejection along without another throw (about 0.5 µs, measured).
        if (after.error === caught) return first;
        throw after.error;
      },
    );
  };
}
