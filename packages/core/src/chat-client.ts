import type { ToolDefinition } from "./tool-definition.js";

/**
 * One tool call an assistant turn asks for. `arguments` is the raw JSON string most providers
 * send, or an already parsed object.
 *
 * @example
 * ```ts
 * const call: ChatToolCall = { id: "call_1", name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' };
 * ```
 */
export interface ChatToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string | Record<string, unknown>;
}

/**
 * The system prompt (the agent's instructions).
 *
 * @example
 * ```ts
 * const system: ChatSystemMessage = { role: "system", content: "You sync CRM contacts." };
 * ```
 */
export interface ChatSystemMessage {
  readonly role: "system";
  readonly content: string;
}

/**
 * A user turn. The runtime also speaks as the user for its own notes (`run_health` after a failing
 * round, the guardrail's correction turn, `budget` when a budget or limit asks the model to wrap
 * up); those carry `kind` so adapters and logs can tell them apart.
 *
 * @example
 * ```ts
 * const notes = result.messages.filter((m) => m.role === "user" && m.kind === "run_health");
 * ```
 */
export interface ChatUserMessage {
  readonly role: "user";
  readonly content: string;
  /** Set on messages the runtime wrote, not the person. */
  readonly kind?: "run_health" | "correction" | "budget";
}

/**
 * An assistant turn: text, tool calls, or both.
 *
 * @example
 * ```ts
 * const turn: ChatAssistantMessage = { role: "assistant", toolCalls: [{ id: "call_1", name: "lookupOrder", arguments: "{}" }] };
 * ```
 */
export interface ChatAssistantMessage {
  readonly role: "assistant";
  readonly content?: string;
  readonly toolCalls?: readonly ChatToolCall[];
}

/**
 * The outcome of one tool call, as the model reads it (`formatToolOutcome`).
 *
 * @example
 * ```ts
 * const reply: ChatToolMessage = { role: "tool", toolCallId: "call_1", name: "lookupOrder", content: formatToolOutcome(outcome) };
 * ```
 */
export interface ChatToolMessage {
  readonly role: "tool";
  readonly toolCallId: string;
  readonly name: string;
  readonly content: string;
}

/**
 * A provider-neutral chat message; close to the OpenAI chat-completions and AI SDK shapes so an
 * adapter is a field-by-field mapping.
 *
 * @example
 * ```ts
 * const messages: ChatMessage[] = [
 *   { role: "system", content: "You look up orders." },
 *   { role: "user", content: "Where is ORD-1?" },
 * ];
 * ```
 */
export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

/**
 * Token counts of one model call.
 *
 * @example
 * ```ts
 * const usage: ChatUsage = { inputTokens: 812, outputTokens: 64, totalTokens: 876 };
 * ```
 */
export interface ChatUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

/**
 * What the agent asks the model: the conversation so far and the tools it may call.
 *
 * @example
 * ```ts
 * const request: ChatRequest = { messages, tools: factory.tools.definitions, signal };
 * ```
 */
export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** Aborted when the caller cancels the run; pass it to the provider's HTTP call. */
  readonly signal?: AbortSignal;
}

/**
 * One assistant message, and what it cost.
 *
 * @example
 * ```ts
 * const response: ChatResponse = { message: { content: "ORD-1 has shipped." }, usage: { inputTokens: 90, outputTokens: 8, totalTokens: 98 } };
 * ```
 */
export interface ChatResponse {
  readonly message: { readonly content?: string; readonly toolCalls?: readonly ChatToolCall[] };
  readonly usage?: ChatUsage;
  /** The provider's stop reason, when it gives one (`stop`, `tool_calls`, `length`, ...). */
  readonly finishReason?: string;
  /** The model that answered, as the provider names it (`gen_ai.response.model`). */
  readonly model?: string;
  /** The provider's id of this response (`gen_ai.response.id`). */
  readonly id?: string;
}

/**
 * Where a {@link ChatClient} sends its requests, for traces (`server.address`, `server.port`).
 *
 * @example
 * ```ts
 * const endpoint: ChatEndpoint = { address: "api.openai.com", port: 443 };
 * ```
 */
export interface ChatEndpoint {
  readonly address: string;
  readonly port?: number;
}

/**
 * The one thing the agent loop needs from a model: messages and tool definitions in, one assistant
 * message out. `ScriptedChatClient` plays a script (tests, demos); provider packages implement it
 * over real APIs.
 *
 * @example
 * ```ts
 * const echo: ChatClient = {
 *   async complete({ messages }) {
 *     const last = messages.at(-1);
 *     return { message: { content: last?.role === "user" ? last.content : "" } };
 *   },
 * };
 * ```
 */
export interface ChatClient {
  /**
   * The provider's name as the OpenTelemetry GenAI conventions spell it (`gen_ai.provider.name`):
   * `openai`, `anthropic`, `aws.bedrock`, ... Traces fall back to `unknown` when it is absent.
   */
  readonly provider?: string;
  /** The server the client talks to, when it has one; traces report it as `server.address`/`server.port`. */
  readonly endpoint?: ChatEndpoint | undefined;
  /** One assistant message for the conversation so far. */
  complete(request: ChatRequest): Promise<ChatResponse>;
  /**
   * Optional streaming form of {@link ChatClient.complete}: yields text deltas and tool calls as the
   * provider produces them, then exactly one `finish` part. A client without it is driven through
   * `complete()`. The stream ends early only by throwing (a cut-off stream must not look finished),
   * and stops when `request.signal` aborts.
   */
  stream?(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

/**
 * A piece of text the model has just written.
 *
 * @example
 * ```ts
 * const part: ChatTextDelta = { type: "text-delta", delta: "Order ORD-1 " };
 * ```
 */
export interface ChatTextDelta {
  readonly type: "text-delta";
  readonly delta: string;
}

/**
 * A complete tool call (clients assemble providers' argument fragments before yielding it).
 *
 * @example
 * ```ts
 * const part: ChatToolCallPart = { type: "tool-call", toolCall: { id: "call_1", name: "lookupOrder", arguments: "{}" } };
 * ```
 */
export interface ChatToolCallPart {
  readonly type: "tool-call";
  readonly toolCall: ChatToolCall;
}

/**
 * The last part of a streamed response: what the whole turn cost and why it stopped.
 *
 * @example
 * ```ts
 * const part: ChatFinishPart = { type: "finish", finishReason: "stop", usage: { inputTokens: 9, outputTokens: 3, totalTokens: 12 } };
 * ```
 */
export interface ChatFinishPart {
  readonly type: "finish";
  readonly usage?: ChatUsage;
  readonly finishReason?: string;
  /** The model that answered, as the provider names it. */
  readonly model?: string;
  /** The provider's id of this response. */
  readonly id?: string;
}

/**
 * One part of a streamed model response, discriminated on `type`.
 *
 * @example
 * ```ts
 * for await (const part of client.stream!(request)) if (part.type === "text-delta") process.stdout.write(part.delta);
 * ```
 */
export type ChatStreamPart = ChatTextDelta | ChatToolCallPart | ChatFinishPart;
