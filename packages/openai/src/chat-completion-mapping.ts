import { NeedleworkError } from "@needlework/core";
import type { ChatMessage, ChatResponse, ChatToolCall, ChatUsage } from "@needlework/core";
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";

function argumentsText(args: ChatToolCall["arguments"]): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/**
 * Maps needlework chat messages to OpenAI chat-completions messages, field by field: an assistant
 * turn's tool calls become `tool_calls` (object arguments as JSON text), a tool message answers its
 * call through `tool_call_id`. The runtime's own user turns (`run_health`, correction) are sent as
 * user messages, as the model is meant to read them.
 *
 * @example
 * ```ts
 * toOpenAIMessages([{ role: "tool", toolCallId: "call_1", name: "getOrderStatus", content: '{"status":"ok"}' }]);
 * // [{ role: "tool", tool_call_id: "call_1", content: '{"status":"ok"}' }]
 * ```
 */
export function toOpenAIMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        return { role: "user", content: message.content };
      case "tool":
        // `name` is not part of the OpenAI tool message; the call id alone links it to its call.
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      case "assistant": {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: "assistant", content: message.content ?? "" };
        return {
          role: "assistant",
          // null beside tool calls, as OpenAI itself returns such a turn.
          content: message.content ?? null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: argumentsText(call.arguments) },
          })),
        };
      }
    }
  });
}

function fromToolCall(call: ChatCompletionMessageToolCall): ChatToolCall {
  // Arguments stay the model's raw text: the invoker parses them and answers malformed JSON with INVALID_ARGUMENTS.
  if (call.type === "function") return { id: call.id, name: call.function.name, arguments: call.function.arguments };
  // needlework only offers function tools; a custom-tool call still reaches the invoker, which reports it to the model.
  return { id: call.id, name: call.custom.name, arguments: call.custom.input };
}

/**
 * The token usage of a completion in needlework's shape; `undefined` when the server sent none.
 *
 * @example
 * ```ts
 * usageOf({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }); // { inputTokens: 12, outputTokens: 3, totalTokens: 15 }
 * ```
 */
export function usageOf(usage: ChatCompletion["usage"]): ChatUsage | undefined {
  if (!usage) return undefined;
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage.total_tokens ?? inputTokens + outputTokens };
}

/**
 * Maps an OpenAI chat completion to a needlework {@link ChatResponse}: the first choice's text
 * (its `refusal` when there is no text) and tool calls with their ids as sent, the usage, and
 * `finish_reason`. Throws a `NeedleworkError` with code `OPENAI_EMPTY_COMPLETION` when the
 * completion has no choice.
 *
 * @example
 * ```ts
 * const response = fromChatCompletion(await openai.chat.completions.create({ model, messages }));
 * response.message.toolCalls; // [{ id: "call_abc", name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' }]
 * ```
 */
export function fromChatCompletion(completion: ChatCompletion): ChatResponse {
  const choice = completion.choices?.[0];
  if (!choice) {
    throw new NeedleworkError(
      "OPENAI_EMPTY_COMPLETION",
      `The chat completion ${completion.id ?? ""} has no choices; the server returned no assistant message. Check the server's logs and the model name.`,
    );
  }
  const { message } = choice;
  const text = message.content ?? message.refusal ?? undefined;
  const toolCalls = (message.tool_calls ?? []).map(fromToolCall);
  const usage = usageOf(completion.usage);
  return {
    message: {
      ...(text === undefined ? {} : { content: text }),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
    },
    ...(usage === undefined ? {} : { usage }),
    ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(completion.id ? { id: completion.id } : {}),
    ...(completion.model ? { model: completion.model } : {}),
  };
}
