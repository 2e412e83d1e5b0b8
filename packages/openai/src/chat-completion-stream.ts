import type { ChatStreamPart, ChatToolCall, ChatUsage } from "@needlework/core";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { usageOf } from "./chat-completion-mapping.js";

/** A tool call being assembled from its fragments. */
interface Assembling {
  id: string;
  name: string;
  arguments: string;
}

/**
 * What a chat-completions stream added up to once it ended: the tool calls (argument fragments
 * joined by their `index`), usage (sent in a last chunk with `stream_options.include_usage`) and
 * the finish reason (`undefined` when the stream ended before the model finished its turn).
 * @internal
 */
export interface ChatCompletionStreamEnd {
  readonly toolCalls: readonly ChatToolCall[];
  readonly usage: ChatUsage | undefined;
  readonly finishReason: string | undefined;
  /** The completion's id and the model that answered, from the chunks. */
  readonly id: string | undefined;
  readonly model: string | undefined;
}

/**
 * Reads a chat-completions stream: yields each text (or refusal) delta as it arrives and returns,
 * once the stream ends, the assembled tool calls, usage and finish reason. Tool calls are only
 * returned whole: a fragment never reaches the agent loop.
 *
 * @example
 * ```ts
 * const reader = readChatCompletionChunks(sdkStream);
 * for (let next = await reader.next(); !next.done; next = await reader.next()) process.stdout.write(next.value.delta);
 * ```
 * @internal
 */
export async function* readChatCompletionChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
): AsyncGenerator<ChatStreamPart & { type: "text-delta" }, ChatCompletionStreamEnd> {
  const calls: Assembling[] = [];
  let usage: ChatUsage | undefined;
  let finishReason: string | undefined;
  let id: string | undefined;
  let model: string | undefined;
  for await (const chunk of chunks) {
    if (chunk.id) id = chunk.id;
    if (chunk.model) model = chunk.model;
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const { delta } = choice;
    const text = delta?.content ?? delta?.refusal;
    if (typeof text === "string" && text !== "") yield { type: "text-delta", delta: text };
    for (const fragment of delta?.tool_calls ?? []) {
      const call = (calls[fragment.index] ??= { id: "", name: "", arguments: "" });
      if (fragment.id) call.id = fragment.id;
      // OpenAI, vLLM and Ollama send the name once, in the call's first fragment; some servers repeat it.
      if (fragment.function?.name && call.name === "") call.name = fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = calls
    .map(
      (call, index): ChatToolCall => ({
        id: call.id === "" ? `call_${index}` : call.id,
        name: call.name,
        arguments: call.arguments,
      }),
    )
    .filter((call) => call.name !== "");
  return { toolCalls, usage, finishReason, id, model };
}
