import { NeedleworkError, toJsonSafe, type JsonValue } from "@needlework/core";
import type { AgentEvent } from "./agent-event.js";
import { browserSafe } from "./browser-safe.js";

/** An event as the browser may see it (see `browserSafe`). */
type BrowserEvent = NonNullable<ReturnType<typeof browserSafe>>;

/**
 * One chunk of the Vercel AI SDK's UI message stream protocol (v1), as `useChat` and
 * `readUIMessageStream` read it: the subset a needlework run produces. Tool parts are `dynamic`
 * (the front end need not declare the agent's tools); run facts with no protocol part of their own
 * travel as data parts (`data-tool-retry`, `data-run-health`, `data-correction`,
 * `data-approval-required`); `finish` carries `{ runId, status, health, usage }` as message metadata.
 *
 * @deprecated The AI SDK encoder moved to `@needlework/ai-sdk`: `import type { UiMessageChunk } from
 * "@needlework/ai-sdk"` (the same type). This copy stays, unchanged, until the next major version.
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

/** Maps one run event to protocol chunks; keeps which text part is open. */
function createEncoder(): (event: BrowserEvent) => UiMessageChunk[] {
  let openText: string | undefined;
  const closeText = (): UiMessageChunk[] => {
    if (openText === undefined) return [];
    const id = openText;
    openText = undefined;
    return [{ type: "text-end", id }];
  };
  return (event) => {
    switch (event.type) {
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
      case "correction":
      case "approval-required": {
        const { type, ...data } = event;
        return [{ type: `data-${type}`, data: toJsonSafe(data) }];
      }
      case "turn-end":
        return [...closeText(), { type: "finish-step" }];
      case "run-end": {
        const { runId, status, health, usage } = event;
        return [
          ...closeText(),
          { type: "finish", finishReason: "stop", messageMetadata: toJsonSafe({ runId, status, health, usage }) },
        ];
      }
    }
  };
}

/**
 * Encodes a run as the AI SDK's UI message stream, so an existing `useChat` front end can drive a
 * needlework agent: each turn is a step, its text a text part, each call a dynamic tool part that
 * ends `output-available` or `output-error` (`"<CODE>: <message>"`, the text the model read). A
 * cancelled run ends with `abort`, a failed one with `error` and a fixed message. Pass it to the
 * SDK's `createUIMessageStreamResponse({ stream })`; cancelling it cancels the run. A protocol
 * encoder only: @needlework/workflows does not depend on `ai`.
 *
 * @deprecated Vendor protocol code lives in the adapter packages: `import { toUiMessageStream } from
 * "@needlework/ai-sdk"` sends the same chunks (a test holds the two equal). This copy stays, unchanged
 * and without new protocol parts, until the next major version; @needlework/workflows cannot re-export
 * it from the adapter, which depends on workflows.
 *
 * @example
 * ```ts
 * // Deprecated: import { toUiMessageStream } from "@needlework/ai-sdk" instead.
 * import { createUIMessageStreamResponse } from "ai";
 *
 * export function POST(): Response {
 *   return createUIMessageStreamResponse({ stream: toUiMessageStream(agent.stream("Where is ORD-1?")) });
 * }
 * ```
 */
export function toUiMessageStream(stream: AsyncIterable<AgentEvent>): ReadableStream<UiMessageChunk> {
  const encode = createEncoder();
  let iterator: AsyncIterator<AgentEvent> | undefined;
  return new ReadableStream<UiMessageChunk>(
    {
      async pull(controller) {
        iterator ??= stream[Symbol.asyncIterator]();
        try {
          // An event that is not sent (or sends no chunk) is skipped: a pull must enqueue, or the stream stalls.
          for (;;) {
            const next = await iterator.next();
            if (next.done) return controller.close();
            const safe = browserSafe(next.value);
            const chunks = safe === undefined ? [] : encode(safe);
            for (const chunk of chunks) controller.enqueue(chunk);
            if (chunks.length > 0) return;
          }
        } catch (error) {
          if (error instanceof Error && error.name === "AbortError") controller.enqueue({ type: "abort" });
          else
            controller.enqueue({
              type: "error",
              errorText: NeedleworkError.isInstance(error) ? `The run failed (${error.code}).` : "The run failed.",
            });
          controller.close();
        }
      },
      async cancel() {
        await iterator?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
