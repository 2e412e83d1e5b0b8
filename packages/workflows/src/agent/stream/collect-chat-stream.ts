import { abortReason, NeedleworkError } from "@needlework/core";
import type { ChatResponse, ChatStreamPart, ChatToolCall, ChatUsage } from "@needlework/core";
import { raceAbort } from "../loop/race-abort.js";

/**
 * A model's stream ended without its `finish` part (the connection was cut, the provider stopped):
 * the turn is not used, so nothing half-written reaches the conversation.
 *
 * @example
 * ```ts
 * const failed = await stream.result.catch((e: unknown) => e);
 * if (failed instanceof ChatStreamIncompleteError) console.error(failed.code); // CHAT_STREAM_INCOMPLETE
 * ```
 */
export class ChatStreamIncompleteError extends NeedleworkError {
  constructor() {
    super(
      "CHAT_STREAM_INCOMPLETE",
      "The chat client's stream ended without a finish part, so the model's turn is incomplete and was not used. " +
        "Check the connection to the model, or make the client's stream() yield { type: \"finish\" } last.",
    );
  }
}

/**
 * Reads a {@link ChatClient.stream} to its end and assembles the one {@link ChatResponse} the loop
 * books, calling `onDelta` for each text delta (awaited: a slow consumer slows the model read, as
 * SSE back-pressure would). `content` is the joined deltas, absent when the stream wrote no text.
 * An abort of `signal` rejects at once and closes the stream.
 * @internal
 */
export async function collectChatStream(
  parts: AsyncIterable<ChatStreamPart>,
  signal: AbortSignal | undefined,
  onDelta: (delta: string) => Promise<void> | undefined,
): Promise<ChatResponse> {
  const iterator = parts[Symbol.asyncIterator]();
  let content: string | undefined;
  const toolCalls: ChatToolCall[] = [];
  let finish: { usage?: ChatUsage; finishReason?: string } | undefined;
  try {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) break;
      const part = next.value;
      if (part.type === "text-delta") {
        content = (content ?? "") + part.delta;
        if (part.delta !== "") await onDelta(part.delta);
      } else if (part.type === "tool-call") {
        toolCalls.push(part.toolCall);
      } else if (part.type === "finish") {
        finish = part;
      }
    }
  } catch (error) {
    // Close the provider's stream (its HTTP body); a close that fails changes nothing here.
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
    throw error;
  }
  if (!finish) throw new ChatStreamIncompleteError();
  return {
    message: { ...(content === undefined ? {} : { content }), ...(toolCalls.length === 0 ? {} : { toolCalls }) },
    ...(finish.usage === undefined ? {} : { usage: finish.usage }),
    ...(finish.finishReason === undefined ? {} : { finishReason: finish.finishReason }),
  };
}
