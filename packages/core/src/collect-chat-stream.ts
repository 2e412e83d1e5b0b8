import { abortReason, NeedleworkError } from "./errors.js";
import type { ChatClient, ChatRequest, ChatResponse, ChatStreamPart, ChatToolCall, ChatUsage } from "./chat-client.js";
import { raceAbort } from "./race-abort.js";

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
  // Named here, not by the bundler (which may emit `_ChatStreamIncompleteError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ChatStreamIncompleteError, "name", { value: "ChatStreamIncompleteError" });
  }
  constructor() {
    super(
      "CHAT_STREAM_INCOMPLETE",
      "The chat client's stream ended without a finish part, so the model's turn is incomplete and was not used. " +
        'Check the connection to the model, or make the client\'s stream() yield { type: "finish" } last.',
    );
  }
}

/**
 * Assembles streamed parts into the one {@link ChatResponse} they stand for: `content` is the joined
 * deltas (absent when the stream wrote no text), tool calls in order, usage and finish reason from
 * the `finish` part. Part of `@needlework/core/kit`.
 */
export class ChatResponseAssembler {
  private content: string | undefined;
  private readonly toolCalls: ChatToolCall[] = [];
  private finish: { usage?: ChatUsage; finishReason?: string } | undefined;

  add(part: ChatStreamPart): void {
    if (part.type === "text-delta") this.content = (this.content ?? "") + part.delta;
    else if (part.type === "tool-call") this.toolCalls.push(part.toolCall);
    else if (part.type === "finish") this.finish = part;
  }

  /** Whether the `finish` part came: a stream without it was cut off. */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  response(): ChatResponse {
    const { content, toolCalls, finish } = this;
    return {
      message: {
        ...(content === undefined ? {} : { content }),
        ...(toolCalls.length === 0 ? {} : { toolCalls: [...toolCalls] }),
      },
      ...(finish?.usage === undefined ? {} : { usage: finish.usage }),
      ...(finish?.finishReason === undefined ? {} : { finishReason: finish.finishReason }),
    };
  }
}

/**
 * Reads a {@link ChatClient.stream} to its end and assembles the one {@link ChatResponse} the loop
 * books, calling `onDelta` for each text delta (awaited: a slow consumer slows the model read, as
 * SSE back-pressure would). An abort of `signal` rejects at once and closes the stream.
 * Part of `@needlework/core/kit`.
 */
export async function collectChatStream(
  parts: AsyncIterable<ChatStreamPart>,
  signal: AbortSignal | undefined,
  onDelta: (delta: string) => Promise<void> | undefined,
): Promise<ChatResponse> {
  const iterator = parts[Symbol.asyncIterator]();
  const assembled = new ChatResponseAssembler();
  try {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) break;
      assembled.add(next.value);
      if (next.value.type === "text-delta" && next.value.delta !== "") await onDelta(next.value.delta);
    }
  } catch (error) {
    // Close the provider's stream (its HTTP body); a close that fails changes nothing here.
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
    throw error;
  }
  if (!assembled.finished) throw new ChatStreamIncompleteError();
  return assembled.response();
}

/**
 * One model call. With `onDelta` (a streamed run) it reads `client.stream()` when the client has
 * one, a delta at a time; otherwise, or without `onDelta` (`run()`), `complete()` (a streamed run
 * then gets the text as one delta). An abort of `signal` rejects at once. Part of `@needlework/core/kit`.
 */
export async function askModel(
  client: ChatClient,
  request: ChatRequest,
  signal: AbortSignal | undefined,
  onDelta: ((delta: string) => Promise<void> | undefined) | undefined,
): Promise<ChatResponse> {
  if (onDelta === undefined) return raceAbort(client.complete(request), signal);
  if (typeof client.stream === "function") return collectChatStream(client.stream(request), signal, onDelta);
  const response = await raceAbort(client.complete(request), signal);
  const text = response.message.content;
  if (text !== undefined && text !== "") await onDelta(text);
  return response;
}
