import type { ToolCallContext } from "@needlework/core";

/**
 * What a layer learns when resilience schedules another attempt of a call.
 *
 * @example
 * ```ts
 * const listener: RetryListener = (event: RetryEvent) => span.addEvent("retry", { attempt: event.attempt, delay_ms: event.delayMs });
 * ```
 */
export interface RetryEvent {
  /** The attempt that failed (1-based); the next one is `attempt + 1`. */
  readonly attempt: number;
  /** The wait before the next attempt, in milliseconds (backoff, or a larger retry-after). */
  readonly delayMs: number;
  /** What failed: the thrown error, or the transient `ToolResult.fail(...)` the tool returned. */
  readonly reason: unknown;
}

/**
 * Told each time resilience schedules a retry of the call it was set on.
 *
 * @example
 * ```ts
 * setRetryListener(call, ({ attempt, delayMs }) => log.debug({ attempt, delayMs }, "retrying"));
 * ```
 */
export type RetryListener = (event: RetryEvent) => void;

// Keyed by the call's `items` map: every view of one call (the invoker's context, resilience's
// per-attempt view, a middleware's `{ ...call }` copy) shares it, and unlike an entry *in* `items`
// the tool never sees it. A WeakMap lookup happens only when a retry is scheduled.
const listeners = new WeakMap<Map<string, unknown>, RetryListener>();

/**
 * Sets (or, with `undefined`, removes) the retry listener of one call. An outer middleware (the
 * diagnostics plugin's tracing) sets it before `next()`; resilience, inside, calls it.
 *
 * @example
 * ```ts
 * const middleware: ToolMiddleware = async (call, next) => {
 *   setRetryListener(call, (event) => console.log(`retry ${event.attempt} in ${event.delayMs} ms`));
 *   try { return await next(); } finally { setRetryListener(call, undefined); }
 * };
 * ```
 */
export function setRetryListener(call: Pick<ToolCallContext, "items">, listener: RetryListener | undefined): void {
  if (listener === undefined) listeners.delete(call.items);
  else listeners.set(call.items, listener);
}

/**
 * Tells the call's retry listener, if any, that another attempt is scheduled. A listener that
 * throws is ignored: observing a retry must never change it.
 *
 * @example
 * ```ts
 * notifyRetry(call, { attempt, delayMs: wait, reason: error });
 * ```
 * @internal
 */
export function notifyRetry(
  call: Pick<ToolCallContext, "items"> & Partial<Pick<ToolCallContext, "callId" | "name">>,
  event: RetryEvent,
): void {
  const listener = listeners.get(call.items);
  const run = call.items.get(RUN_RETRY_ITEM);
  try {
    listener?.(event);
  } catch {
    // A broken listener must not turn a retry into a crash.
  }
  if (typeof run !== "function" || !runListeners.has(run as RunRetryListener)) return;
  try {
    (run as RunRetryListener)({ ...event, callId: call.callId ?? "", tool: call.name ?? "" });
  } catch {
    // As above.
  }
}

/**
 * A retry of one of a run's calls, as a run-wide listener sees it. @internal
 *
 * @example
 * ```ts
 * const log = (event: RunRetryEvent) => console.log(`${event.tool} (${event.callId}) retry ${event.attempt}`);
 * ```
 */
export interface RunRetryEvent extends RetryEvent {
  readonly callId: string;
  readonly tool: string;
}

/** @internal */
export type RunRetryListener = (event: RunRetryEvent) => void;

// A run (agent.stream) hands one listener to all its calls through `items` (every call copies the
// invoke options' items, so the WeakMap above cannot carry it). Only listeners made here count,
// so a value a tool puts under the key is ignored.
const RUN_RETRY_ITEM = "needlework.runRetryListener";
const runListeners = new WeakSet<RunRetryListener>();

/**
 * The `items` to pass to `invoker.invoke(call, { items })` so that every retry of that call is told
 * to `listener` (besides the call's own listener). Used by the agent loop to stream `tool-retry`.
 *
 * @example
 * ```ts
 * await invoker.invoke(call, { items: runRetryItems((event) => console.log(event.callId, event.attempt)) });
 * ```
 * @internal
 */
export function runRetryItems(listener: RunRetryListener): ReadonlyMap<string, unknown> {
  runListeners.add(listener);
  return new Map([[RUN_RETRY_ITEM, listener]]);
}
