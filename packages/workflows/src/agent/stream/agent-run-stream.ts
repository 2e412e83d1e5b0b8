import { abortReason } from "@needlework/core";
import type { AgentEvent, AgentRunResult } from "@needlework/core/events";

/**
 * A run as it happens: iterate it for {@link AgentEvent}s (once), and await `result` for the same
 * `AgentRunResult` that `agent.run()` gives. Breaking out of the loop cancels the run; `result`
 * then rejects with an AbortError (a rejection nobody awaits is not reported as unhandled).
 *
 * @example
 * ```ts
 * const stream = agent.stream("Where is ORD-1?", { signal });
 * for await (const event of stream) if (event.type === "text-delta") process.stdout.write(event.delta);
 * const result = await stream.result;
 * ```
 */
export interface AgentRunStream extends AsyncIterable<AgentEvent> {
  readonly result: Promise<AgentRunResult>;
}

/**
 * Where a run hands its events (see {@link createAgentRunStream}). `emit` waits while the stream's
 * buffer is full (so a slow consumer slows the run, never loses events) and rejects once the run is
 * cancelled: await it.
 *
 * @example
 * ```ts
 * const stream = createAgentRunStream(async (sink: RunEventSink) => {
 *   await sink.emit({ type: "run-start", runId: "r1", agent: "custom" });
 *   const result = await agent.run("hi");
 *   await sink.emit({ type: "run-end", result });
 *   return result;
 * });
 * ```
 */
export interface RunEventSink {
  emit(event: AgentEvent): Promise<void> | undefined;
  /**
   * Queues without waiting, for events raised inside a synchronous callback (a retry being
   * scheduled). Few per call, so they may go past the buffer's bound.
   */
  emitNow(event: AgentEvent): void;
}

/**
 * Options of {@link createAgentRunStream}.
 *
 * @example
 * ```ts
 * const options: AgentRunStreamOptions = { signal: AbortSignal.timeout(60_000), bufferSize: 16 };
 * ```
 */
export interface AgentRunStreamOptions {
  /** Cancels the run, like breaking out of the loop. */
  readonly signal?: AbortSignal;
  /** Events buffered before the run waits for the consumer. Default 64. */
  readonly bufferSize?: number;
}

/**
 * The default bound of a stream's buffer, in events.
 *
 * @example
 * ```ts
 * agent.stream("hi", { bufferSize: DEFAULT_STREAM_BUFFER * 2 });
 * ```
 */
export const DEFAULT_STREAM_BUFFER = 64;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Runs `start` with a sink feeding a bounded buffer, and returns the stream over it. `start` gets
 * the run's signal: the caller's `signal` combined with the consumer stopping early.
 * `agent.stream()` and `agent.resumeStream()` are built on it; use it to stream a run of your own
 * making (a relay, a wrapper that adds events).
 *
 * @example
 * ```ts
 * const relay = createAgentRunStream(async (sink, signal) => {
 *   const inner = agent.stream("Where is ORD-1?", { signal });
 *   for await (const event of inner) await sink.emit(event);
 *   return inner.result;
 * });
 * ```
 */
export function createAgentRunStream(
  start: (sink: RunEventSink, signal: AbortSignal) => Promise<AgentRunResult>,
  options: AgentRunStreamOptions = {},
): AgentRunStream {
  const capacity = options.bufferSize ?? DEFAULT_STREAM_BUFFER;
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`createAgentRunStream: bufferSize must be a positive integer (got ${String(capacity)}).`);
  const stopped = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopped.signal]) : stopped.signal;
  const queue: AgentEvent[] = [];
  const writers: Waiter[] = [];
  let reader: { resolve(result: IteratorResult<AgentEvent>): void; reject(error: unknown): void } | undefined;
  let ended: { error?: unknown; failed: boolean } | undefined;
  let iterated = false;
  let detached = false;

  const wakeReader = (): void => {
    if (!reader) return;
    const waiting = reader;
    if (queue.length > 0) {
      reader = undefined;
      waiting.resolve({ value: shift(), done: false });
    } else if (ended) {
      reader = undefined;
      void end().then(waiting.resolve, waiting.reject);
    }
  };
  // After the buffered events: the run's error once (unless the consumer left), then done.
  const end = (): Promise<IteratorResult<AgentEvent>> => {
    if (ended?.failed && !detached) {
      detached = true;
      return Promise.reject(ended.error);
    }
    return Promise.resolve({ value: undefined, done: true });
  };
  const shift = (): AgentEvent => {
    const event = queue.shift()!;
    while (writers.length > 0 && queue.length < capacity) writers.shift()!.resolve();
    return event;
  };
  const onAbort = (): void => {
    for (const writer of writers.splice(0)) writer.reject(abortReason(signal));
  };
  signal.addEventListener("abort", onAbort, { once: true });

  const sink: RunEventSink = {
    emit(event) {
      if (signal.aborted) return Promise.reject(abortReason(signal));
      if (queue.length < capacity) {
        queue.push(event);
        wakeReader();
        return undefined;
      }
      return new Promise<void>((resolve, reject) => writers.push({ resolve, reject })).then(() => {
        queue.push(event);
        wakeReader();
      });
    },
    emitNow(event) {
      if (signal.aborted) return;
      queue.push(event);
      wakeReader();
    },
  };

  const settle = (error: unknown, failed: boolean): void => {
    signal.removeEventListener("abort", onAbort);
    ended = { error, failed };
    wakeReader();
  };
  let result: Promise<AgentRunResult>;
  try {
    result = start(sink, signal);
  } catch (error) {
    result = Promise.reject(error);
  }
  result.then(
    () => settle(undefined, false),
    (error: unknown) => settle(error, true),
  );

  const iterator: AsyncIterator<AgentEvent> = {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: shift(), done: false });
      if (ended || detached) return end();
      return new Promise((resolve, reject) => (reader = { resolve, reject }));
    },
    return() {
      // The consumer stopped reading: a run still going is cancelled (its tools' signals abort).
      detached = true;
      queue.length = 0;
      if (!ended)
        stopped.abort(new DOMException("The stream's consumer stopped reading; the run was cancelled.", "AbortError"));
      return Promise.resolve({ value: undefined, done: true });
    },
  };

  return {
    result,
    [Symbol.asyncIterator]() {
      if (iterated) throw new TypeError("An AgentRunStream can be iterated once; start another run to read it again.");
      iterated = true;
      return iterator;
    },
  };
}
