import type { ChatMessage, ChatRequest, ChatToolCall, ChatUsage } from "@needlework/core";
import type {
  AiSdkCallOptions,
  AiSdkContentPart,
  AiSdkInputSchema,
  AiSdkPromptMessage,
} from "./ai-sdk-language-model.js";

function parsedArguments(args: ChatToolCall["arguments"]): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args; // the model wrote broken JSON; send it back as it was, the tool already said so
  }
}

function toPromptMessage(message: ChatMessage): AiSdkPromptMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: [{ type: "text", text: message.content }] };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: parsedArguments(call.arguments),
          })),
        ],
      };
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.name,
            output: { type: "text", value: message.content },
          },
        ],
      };
  }
}

/**
 * The spec call options for a needlework chat request: messages as prompt, tools as function tools
 * with needlework's JSON Schemas, and the run's abort signal.
 *
 * @internal
 * @example
 * ```ts
 * const result = await model.doGenerate(toCallOptions(request));
 * ```
 */
export function toCallOptions(request: ChatRequest): AiSdkCallOptions {
  return {
    prompt: request.messages.map(toPromptMessage),
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((t) => ({
            type: "function" as const,
            name: t.name,
            description: t.description,
            inputSchema: t.parameters as unknown as AiSdkInputSchema,
          })),
        }),
    ...(request.signal ? { abortSignal: request.signal } : {}),
  };
}

function tokens(value: unknown): number {
  if (typeof value === "number") return value;
  const total = typeof value === "object" && value !== null ? (value as { total?: unknown }).total : undefined;
  return typeof total === "number" ? total : 0;
}

/**
 * Token counts from a V2 (flat numbers) or V3/V4 (`{ total, ... }` per direction) usage object.
 *
 * @internal
 * @example
 * ```ts
 * toChatUsage({ inputTokens: { total: 9 }, outputTokens: { total: 3 } }); // { 9, 3, 12 }
 * ```
 */
export function toChatUsage(usage: unknown): ChatUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
  const input = tokens(inputTokens);
  const output = tokens(outputTokens);
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}

// A Map: the key comes from the provider, and an object's lookup of "constructor" would find a function.
const FINISH_REASONS: ReadonlyMap<string, string> = new Map([
  ["tool-calls", "tool_calls"],
  ["content-filter", "content_filter"],
]);

/**
 * needlework's finish reason (`stop`, `tool_calls`, `length`, ...) from a V2 string or a V3/V4
 * `{ unified, raw }` object.
 *
 * @internal
 * @example
 * ```ts
 * toFinishReason({ unified: "tool-calls", raw: "tool_use" }); // "tool_calls"
 * ```
 */
export function toFinishReason(reason: unknown): string | undefined {
  const unified = typeof reason === "object" && reason !== null ? (reason as { unified?: unknown }).unified : reason;
  return typeof unified === "string" ? (FINISH_REASONS.get(unified) ?? unified) : undefined;
}

/**
 * A needlework tool call from a spec `tool-call` part; `undefined` for other parts and for calls the
 * provider executed itself (their results are already in the response).
 *
 * @internal
 * @example
 * ```ts
 * toToolCall({ type: "tool-call", toolCallId: "c1", toolName: "getOrderStatus", input: "{}" });
 * ```
 */
export function toToolCall(part: AiSdkContentPart): ChatToolCall | undefined {
  if (part.type !== "tool-call" || part.providerExecuted === true) return undefined;
  const input = part.input;
  const args = typeof input === "string" ? input : JSON.stringify(input ?? {});
  return { id: part.toolCallId ?? "", name: part.toolName ?? "", arguments: args };
}
