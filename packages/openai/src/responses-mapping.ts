import type { ChatMessage, ChatResponse, ChatToolCall, ChatUsage, OpenAIFunctionTool } from "@needlework/core";
import type { FunctionTool, Response, ResponseInputItem, ResponseUsage } from "openai/resources/responses/responses";

/**
 * Maps needlework chat messages to Responses API input items, in order: system, user and assistant
 * text become messages; each assistant tool call becomes a `function_call` item and each tool
 * message the `function_call_output` that answers it through `call_id`.
 *
 * @example
 * ```ts
 * toResponsesInput([{ role: "tool", toolCallId: "call_1", name: "getOrderStatus", content: '{"status":"ok"}' }]);
 * // [{ type: "function_call_output", call_id: "call_1", output: '{"status":"ok"}' }]
 * ```
 */
export function toResponsesInput(messages: readonly ChatMessage[]): ResponseInputItem[] {
  return messages.flatMap((message): ResponseInputItem[] => {
    switch (message.role) {
      case "system":
      case "user":
        return [{ role: message.role, content: message.content }];
      case "tool":
        return [{ type: "function_call_output", call_id: message.toolCallId, output: message.content }];
      case "assistant": {
        const text: ResponseInputItem[] = message.content ? [{ role: "assistant", content: message.content }] : [];
        const calls = (message.toolCalls ?? []).map(
          (call): ResponseInputItem => ({
            type: "function_call",
            call_id: call.id,
            name: call.name,
            arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
          }),
        );
        return [...text, ...calls];
      }
    }
  });
}

/**
 * Chat-completions function tools (core's `toOpenAITools`) in the Responses API's flat shape.
 *
 * @example
 * ```ts
 * toResponsesTools(toOpenAITools(factory.tools.definitions)); // [{ type: "function", name: "getOrderStatus", parameters, strict: true, ... }]
 * ```
 */
export function toResponsesTools(tools: readonly OpenAIFunctionTool[]): FunctionTool[] {
  return tools.map(({ function: f }) => ({
    type: "function",
    name: f.name,
    ...(f.description === undefined ? {} : { description: f.description }),
    parameters: f.parameters as FunctionTool["parameters"],
    strict: f.strict ?? false,
  }));
}

/**
 * The token usage of a response in needlework's shape; `undefined` when the server sent none.
 *
 * @example
 * ```ts
 * responsesUsageOf({ input_tokens: 12, output_tokens: 3, total_tokens: 15, ... }); // { inputTokens: 12, outputTokens: 3, totalTokens: 15 }
 * ```
 */
export function responsesUsageOf(usage: ResponseUsage | null | undefined): ChatUsage | undefined {
  if (!usage) return undefined;
  const inputTokens = usage.input_tokens ?? 0;
  const outputTokens = usage.output_tokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage.total_tokens ?? inputTokens + outputTokens };
}

/** The Responses API's end states in chat-completions words, which the loop and traces read. */
function finishReasonOf(response: Response, toolCalls: number): string {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens" ? "length" : (reason ?? "incomplete");
  }
  return toolCalls > 0 ? "tool_calls" : "stop";
}

/**
 * Maps a Responses API response to a needlework {@link ChatResponse}: the output messages' text
 * (refusals included), the `function_call` items as tool calls (their `call_id` as the id), usage,
 * a chat-completions style finish reason (`stop`, `tool_calls`, `length`), and the response's
 * `id` and `model`.
 *
 * @example
 * ```ts
 * const response = fromResponse(await openai.responses.create({ model, input: toResponsesInput(messages) }));
 * response.message.toolCalls; // [{ id: "call_abc", name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' }]
 * ```
 */
export function fromResponse(response: Response): ChatResponse {
  const texts: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const part of item.content ?? []) texts.push(part.type === "output_text" ? part.text : part.refusal);
    } else if (item.type === "function_call") {
      // Arguments stay the model's raw text: the invoker parses them and answers malformed JSON with INVALID_ARGUMENTS.
      toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    }
  }
  const usage = responsesUsageOf(response.usage);
  return {
    message: {
      ...(texts.length === 0 ? {} : { content: texts.join("") }),
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
    },
    ...(usage === undefined ? {} : { usage }),
    finishReason: finishReasonOf(response, toolCalls.length),
    ...(response.id ? { id: response.id } : {}),
    ...(response.model ? { model: response.model } : {}),
  };
}
