import { type JsonValue, NeedleworkError, toJsonSafe } from "@needlework/core";
import type { AgentEvent } from "@needlework/core/events";
import type { UiMessageSourceEvent } from "./ui-message-events.js";

/**
 * One chunk of the Vercel AI SDK's UI message stream protocol (v1), as `useChat` and
 * `readUIMessageStream` read it: the subset a needlework run produces. Tool parts are `dynamic`
 * (the front end need not declare the agent's tools); run facts with no protocol part of their own
 * travel as data parts (`data-tool-retry`, `data-run-health`, `data-correction`,
 * `data-approval-required`); `finish` carries `{ runId, status, health, usage }` as message metadata.
 *
 * @example
 * ```ts
 * const chunk: UiMessageChunk = { type: "text-delta", id: "text-1", delta: "Order ORD-1 " };
 * ```
 */
export type UiMessageChunk =
  | { readonly type: "start"; readonly messageId: string }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | {
      readonly type: "tool-input-available";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly dynamic: true;
    }
  | {
      readonly type: "tool-output-available";
      readonly toolCallId: string;
      readonly output: JsonValue;
      readonly dynamic: true;
    }
  | {
      readonly type: "tool-output-error";
      readonly toolCallId: string;
      readonly errorText: string;
      readonly dynamic: true;
    }
  | { readonly type: `data-${string}`; readonly data: JsonValue }
  | { readonly type: "finish"; readonly finishReason: "stop"; readonly messageMetadata: JsonValue }
  | { readonly type: "abort" }
  | { readonly type: "error"; readonly errorText: string };

/** The arguments as an object when the model sent JSON text; the text itself when it is not JSON. */
function inputOf(args: string | Record<string, unknown>): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/**
 * Maps one run event to protocol chunks; keeps which text part is open. What reaches the browser is
 * picked field by field: `run-end` gives `{ runId, status, health, usage }` (never the messages, the
 * instructions or a checkpoint), `approval-required` gives `{ runId, pending }` (the signed checkpoint
 * stays on the server), and an event of a type not listed here sends nothing.
 */
function createEncoder(): (event: UiMessageSourceEvent) => UiMessageChunk[] {
  let openText: string | undefined;
  const closeText = (): UiMessageChunk[] => {
    if (openText === undefined) return [];
    const id = openText;
    openText = undefined;
    return [{ type: "text-end", id }];
  };
  return (event) => {
    switch (event?.type) {
      case "run-start":
        return [{ type: "start", messageId: event.runId }];
      case "turn-start":
        return [{ type: "start-step" }];
      case "text-delta": {
        const id = `text-${event.turn}`;
        const start: UiMessageChunk[] = openText === id ? [] : [...closeText(), { type: "text-start", id }];
        openText = id;
        return [...start, { type: "text-delta", id, delta: event.delta }];
      }
      case "tool-call": {
        const input = toJsonSafe(inputOf(event.arguments));
        return [
          ...closeText(),
          { type: "tool-input-available", toolCallId: event.callId, toolName: event.tool, input, dynamic: true },
        ];
      }
      case "tool-result": {
        const { outcome } = event;
        if (outcome.status === "ok" || outcome.status === "partial") {
          return [
            { type: "tool-output-available", toolCallId: event.callId, output: toJsonSafe(outcome), dynamic: true },
          ];
        }
        const errorText = `${outcome.errorCode ?? outcome.status.toUpperCase()}: ${outcome.message ?? outcome.status}`;
        return [{ type: "tool-output-error", toolCallId: event.callId, errorText, dynamic: true }];
      }
      case "tool-retry":
      case "run-health":
      case "correction": {
        const { type, ...data } = event;
        return [{ type: `data-${type}`, data: toJsonSafe(data) }];
      }
      case "approval-required": {
        const pending = event.pending.map(({ callId, tool, arguments: args }) => ({ callId, tool, arguments: args }));
        return [{ type: "data-approval-required", data: toJsonSafe({ runId: event.checkpoint.runId, pending }) }];
      }
      case "turn-end":
        return [...closeText(), { type: "finish-step" }];
      case "run-end": {
        const { runId, status, health, usage } = event.result;
        return [
          ...closeText(),
          { type: "finish", finishReason: "stop", messageMetadata: toJsonSafe({ runId, status, health, usage }) },
        ];
      }
      default:
        return [];
    }
  };
}

/** The last chunk of a run that did not end: `abort` when it was cancelled, else a fixed `error` text. */
function endChunk(error: unknown): UiMessageChunk {
  if (error instanceof Error && error.name === "AbortError") return { type: "abort" };
  return {
    type: "error",
    errorText: NeedleworkError.isInstance(error) ? `The run failed (${error.code}).` : "The run failed.",
  };
}

/**
 * Encodes a run as the AI SDK's UI message stream, so an existing `useChat` front end can drive a
 * needlework agent: each turn is a step, its text a text part, each call a dynamic tool part that
 * ends `output-available` or `output-error` (`"<CODE>: <message>"`, the text the model read). A
 * cancelled run ends with `abort`, a failed one with `error` and a fixed message (never the
 * exception's text). Pass it to the SDK's `createUIMessageStreamResponse({ stream })`; events are
 * read as the client takes them, and cancelling the stream cancels the run. A protocol encoder only:
 * it reads `AgentEvent` (`@needlework/core/events`, what `agent.stream()` yields) and needs neither
 * `ai` nor @needlework/workflows. `@needlework/workflows`' deprecated `toUiMessageStream` is this
 * function.
 *
 * @example
 * ```ts
 * import { toUiMessageStream } from "@needlework/ai-sdk";
 * import { createUIMessageStreamResponse } from "ai";
 *
 * export function POST(): Response {
 *   return createUIMessageStreamResponse({ stream: toUiMessageStream(agent.stream("Where is ORD-1?")) });
 * }
 * ```
 */
export function toUiMessageStream(
  stream: AsyncIterable<AgentEvent | UiMessageSourceEvent>,
): ReadableStream<UiMessageChunk> {
  const encode = createEncoder();
  let iterator: AsyncIterator<AgentEvent | UiMessageSourceEvent> | undefined;
  return new ReadableStream<UiMessageChunk>(
    {
      async pull(controller) {
        iterator ??= stream[Symbol.asyncIterator]();
        try {
          // An event that sends no chunk is skipped: a pull must enqueue, or the stream stalls.
          for (;;) {
            const next = await iterator.next();
            if (next.done) return controller.close();
            const chunks = encode(next.value);
            for (const chunk of chunks) controller.enqueue(chunk);
            if (chunks.length > 0) return;
          }
        } catch (error) {
          controller.enqueue(endChunk(error));
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
