import { type ChatResponse, type ChatStreamPart, type ChatToolCall, toJsonSafe } from "@needlework/core";
import type { JournaledTurn } from "./run-journal.js";

/**
 * A model turn as the journal keeps it: the assistant message as its JSON-safe snapshot (arguments
 * nested past its depth are stored as its marker), with its usage and finish reason.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function journaledTurn(index: number, response: ChatResponse): JournaledTurn {
  return {
    index,
    message: toJsonSafe({ role: "assistant", ...response.message }) as unknown as JournaledTurn["message"],
    ...(response.usage ? { usage: response.usage } : {}),
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
  };
}

/**
 * A recorded turn as the model's response again: what a replay answers instead of asking the model.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function recordedResponse(recorded: JournaledTurn): ChatResponse {
  const { role: _role, ...message } = recorded.message;
  const response: ChatResponse = { message, ...(recorded.usage ? { usage: recorded.usage } : {}) };
  return recorded.finishReason === undefined ? response : { ...response, finishReason: recorded.finishReason };
}

/**
 * Tool call ids the loop would otherwise generate at random: deterministic, so a replay finds them.
 * Calls named well (unique, non-empty ids) pass as they are.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function withCallIds(
  toolCalls: readonly ChatToolCall[] | undefined,
  runId: string,
  turn: number,
): ChatToolCall[] | undefined {
  if (toolCalls === undefined) return undefined;
  // Most turns name their calls well: they pass as they are (no copy).
  const seen = new Set<string>();
  for (const c of toolCalls) {
    if (typeof c.id !== "string" || c.id === "" || seen.has(c.id)) break;
    seen.add(c.id);
  }
  if (seen.size === toolCalls.length) return toolCalls as ChatToolCall[];
  seen.clear();
  return toolCalls.map((call, i) => {
    let id = typeof call.id === "string" && call.id !== "" && !seen.has(call.id) ? call.id : `${runId}_t${turn}_c${i}`;
    while (seen.has(id)) id = `${id}_`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/**
 * A recorded response as the parts of a stream: what a streamed replay yields instead of the model's stream.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function* recordedParts(response: ChatResponse): Generator<ChatStreamPart> {
  const { content, toolCalls = [] } = response.message;
  if (content !== undefined && content !== "") yield { type: "text-delta", delta: content };
  for (const toolCall of toolCalls) yield { type: "tool-call", toolCall };
  yield finishPart(response);
}

/**
 * The `finish` part of a stream for `response`: its usage and finish reason.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function finishPart(response: ChatResponse): ChatStreamPart {
  return {
    type: "finish",
    ...(response.usage ? { usage: response.usage } : {}),
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
  };
}
