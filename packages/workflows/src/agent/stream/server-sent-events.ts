import { NeedleworkError, safeJsonStringify } from "@needlework/core";
import type { AgentEvent } from "@needlework/core/events";
import { browserSafe } from "./browser-safe.js";

/**
 * The last frame of a stream whose run failed (`event: run-error`, named apart from EventSource's
 * own `error` event): a stable code and a fixed, safe message, never the exception's own text.
 *
 * @example
 * ```ts
 * const source = new EventSource("/events");
 * source.addEventListener("run-error", (e) => {
 *   const frame = JSON.parse((e as MessageEvent<string>).data) as RunErrorFrame;
 *   console.warn(frame.code);
 * });
 * ```
 */
export interface RunErrorFrame {
  readonly type: "run-error";
  /** `ABORTED` when the run was cancelled, a needlework error's `code`, else `RUN_FAILED`. */
  readonly code: string;
  readonly message: string;
}

function errorFrame(error: unknown): RunErrorFrame {
  if (error instanceof Error && error.name === "AbortError")
    return { type: "run-error", code: "ABORTED", message: "The run was cancelled." };
  if (NeedleworkError.isInstance(error))
    return { type: "run-error", code: error.code, message: `The run failed (${error.code}).` };
  return { type: "run-error", code: "RUN_FAILED", message: "The run failed." };
}

/** One server-sent-events frame; JSON never holds a raw line break, so `data` is one line. */
function frame(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${safeJsonStringify(data)}\n\n`;
}

/**
 * Turns a run's events into a web `ReadableStream` of server-sent events: one
 * `event: <type>` / `data: <json>` frame per {@link AgentEvent} (JSON-safe), and a final
 * `event: run-error` frame ({@link RunErrorFrame}) when the run fails. What a browser gets is a
 * projection: `run-end` carries `{ runId, status, text, health, usage }` (never the messages, the
 * instructions or a checkpoint), `approval-required` carries `{ runId, pending }` (each
 * `{ callId, tool, arguments }`; the signed checkpoint stays with the server, in `stream.result`),
 * and an event whose type is not a known `AgentEvent` type is never written.
 * Events are read as the client takes them (a slow client slows the run); cancelling the
 * `ReadableStream` (the client went away) cancels the run.
 *
 * @example
 * ```ts
 * const body = toServerSentEvents(agent.stream("Where is ORD-1?"));
 * const headers = { "content-type": "text/event-stream", "cache-control": "no-cache" };
 * const response = new Response(body, { headers });
 * ```
 */
export function toServerSentEvents(stream: AsyncIterable<AgentEvent>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<AgentEvent> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        iterator ??= stream[Symbol.asyncIterator]();
        try {
          // An event that is not sent is skipped here: a pull must enqueue, or the stream stalls.
          for (;;) {
            const next = await iterator.next();
            if (next.done) return controller.close();
            const safe = browserSafe(next.value);
            if (safe !== undefined) return controller.enqueue(encoder.encode(frame(safe.type, safe)));
          }
        } catch (error) {
          controller.enqueue(encoder.encode(frame("run-error", errorFrame(error))));
          controller.close();
        }
      },
      async cancel() {
        await iterator?.return?.();
      },
    },
    // Nothing is read ahead of the client: back-pressure reaches the run.
    { highWaterMark: 0 },
  );
}
