import { abortReason, type ChatEndpoint, type ChatStreamPart, NeedleworkError } from "@needlework/core";
import { type OpenAIFunctionTool, toOpenAITools, type ToolDefinition } from "@needlework/core";
import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import { OpenAI } from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import type {
  Response as OpenAIResponse,
  ResponseCreateParamsNonStreaming,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { fromChatCompletion, toOpenAIMessages } from "./chat-completion-mapping.js";
import { readChatCompletionChunks } from "./chat-completion-stream.js";
import {
  checkOpenAIChatClientOptions,
  OPENAI_CHAT_CLIENT_DEFAULTS,
  type OpenAIApi,
  type OpenAIChatClientOptions,
} from "./openai-chat-client.options.js";
import {
  describeFailure,
  invalidResponseError,
  notJsonError,
  streamInterruptedError,
} from "./openai-response-error.js";
import { fromResponse, toResponsesInput, toResponsesTools } from "./responses-mapping.js";
import { readResponseEvents } from "./responses-stream.js";
import { createSdkClient, endpointOf, isOpenAIHost, linkSignal, untilAborted } from "./openai-sdk-client.js";

/**
 * A {@link ChatClient} over the official `openai` SDK (6 or 7), for OpenAI or any OpenAI-compatible
 * server (Ollama, vLLM, llama.cpp). It speaks Chat Completions by default, or OpenAI's Responses
 * API with `api: "responses"`. Messages map field by field (tool-call ids kept both ways), tools go
 * out through core's `toOpenAITools`, and the usage and finish reason come back. `stream(request)`
 * yields text deltas as the model writes, then the assembled tool calls and one `finish` part.
 *
 * Errors: HTTP errors stay the SDK's (`RateLimitError`, `InternalServerError`, `AuthenticationError`,
 * ... all `OpenAI.APIError` with a `status`) once its own retries are spent. A server that cannot
 * be reached, answers with something other than the API's JSON (an HTML page from a proxy, a
 * cut-off body), or cuts a stream short gives one {@link OpenAIResponseError} whose message says
 * what to check. Cancellation: the request's signal aborts the HTTP call and the call rejects at
 * once with an AbortError (the signal's reason), also while the SDK waits out a `retry-after`.
 *
 * @example
 * ```ts
 * const chatClient = new OpenAIChatClient({ model: "gpt-4o-mini" }); // OPENAI_API_KEY from the environment
 * const local = new OpenAIChatClient({ baseURL: "http://localhost:11434/v1", model: "llama3.1" }); // Ollama
 * const agent = factory.createAgent({ name: "support", instructions: "Answer order questions.", chatClient });
 * ```
 */
export class OpenAIChatClient implements ChatClient {
  /** `gen_ai.provider.name` in traces. */
  readonly provider = "openai";
  /** The SDK client the requests go through (yours when you passed `client`). */
  readonly client: OpenAI;
  readonly model: string;
  /** The API the requests use. */
  readonly api: OpenAIApi;
  /** The sampling temperature sent (`gen_ai.request.temperature` in traces); the server's default when undefined. */
  readonly temperature: number | undefined;
  /** The output token limit sent (`gen_ai.request.max_tokens` in traces); the server's default when undefined. */
  readonly maxTokens: number | undefined;
  /** Host and port of the base URL (`server.address`/`server.port` in traces). */
  readonly endpoint: ChatEndpoint | undefined;
  private readonly options: OpenAIChatClientOptions;
  private readonly maxTokensField: "max_completion_tokens" | "max_tokens";
  /** An invoker's `definitions` is one array for its lifetime, so each is converted once. */
  private readonly tools = new WeakMap<readonly ToolDefinition[], OpenAIFunctionTool[]>();

  constructor(options: OpenAIChatClientOptions) {
    checkOpenAIChatClientOptions(options);
    this.options = { ...options };
    this.model = options.model;
    this.api = options.api ?? OPENAI_CHAT_CLIENT_DEFAULTS.api;
    this.temperature = options.temperature;
    this.maxTokens = options.maxTokens;
    this.client = options.client ?? createSdkClient(options);
    this.endpoint = endpointOf(this.client.baseURL);
    this.maxTokensField =
      options.maxTokensField ?? (isOpenAIHost(this.client.baseURL) ? "max_completion_tokens" : "max_tokens");
  }

  /**
   * The body `complete(request)` sends (Chat Completions, or Responses with `api: "responses"`):
   * handy to log or to check what a model is told.
   *
   * @example
   * ```ts
   * console.log(JSON.stringify(chatClient.requestBody({ messages, tools: factory.tools.definitions })));
   * ```
   */
  requestBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming | ResponseCreateParamsNonStreaming {
    return this.api === "responses" ? this.responsesBody(request) : this.chatBody(request);
  }

  /**
   * One assistant message for the agent's messages and tools.
   *
   * @example
   * ```ts
   * const { message, usage } = await chatClient.complete({ messages, tools: factory.tools.definitions, signal });
   * ```
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const { signal } = request;
    if (signal?.aborted) throw abortReason(signal);
    const link = linkSignal(signal);
    try {
      const options = this.requestOptions(link.controller.signal);
      if (this.api === "responses") {
        // The raw answer, parsed here: the SDK's own parsing of a Responses body reads fields of
        // whatever came back and throws a bare TypeError for a body that is not a response.
        const sent = this.client.responses.create(this.responsesBody(request), options).asResponse();
        const response = await untilAborted(sent, link.controller.signal);
        return fromResponse(this.checked<OpenAIResponse>(await this.parsed(response), response, "output"));
      }
      const sent = this.client.chat.completions.create(this.chatBody(request), options).withResponse();
      const { data, response } = await untilAborted(sent, link.controller.signal);
      return fromChatCompletion(this.checked<ChatCompletion>(data, response, "choices"));
    } catch (error) {
      // The SDK reports an abort as APIUserAbortError; callers check for an AbortError.
      if (signal?.aborted) throw abortReason(signal);
      throw describeFailure(error, this.client, this.api);
    } finally {
      link.release();
    }
  }

  /**
   * Streams one assistant message over the SDK's server-sent events: text deltas as the model writes
   * them, then each tool call whole (argument fragments joined), then one `finish` part with the
   * usage (`stream_options.include_usage` on Chat Completions). A stream that ends before the
   * model finished its turn throws `OPENAI_STREAM_INTERRUPTED` and yields no tool call or finish
   * part; an abort (or breaking out of the loop) closes the connection and throws the AbortError.
   *
   * @example
   * ```ts
   * for await (const part of chatClient.stream({ messages, tools: [] })) {
   *   if (part.type === "text-delta") process.stdout.write(part.delta);
   * }
   * ```
   */
  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const { signal } = request;
    if (signal?.aborted) throw abortReason(signal);
    const link = linkSignal(signal);
    let finished = false;
    try {
      const events = await this.openStream(request, link.controller.signal);
      let ended: ChatResponse | undefined;
      try {
        if (this.api === "responses") {
          const reader = readResponseEvents(events as AsyncIterable<ResponseStreamEvent>, this.client.baseURL);
          let next = await reader.next();
          for (; !next.done; next = await reader.next()) yield next.value;
          if (next.value !== undefined) ended = fromResponse(next.value);
        } else {
          const reader = readChatCompletionChunks(events as AsyncIterable<ChatCompletionChunk>);
          let next = await reader.next();
          for (; !next.done; next = await reader.next()) yield next.value;
          const { toolCalls, usage, finishReason, id, model } = next.value;
          if (finishReason !== undefined) {
            ended = {
              message: { toolCalls },
              ...(usage === undefined ? {} : { usage }),
              finishReason,
              ...(id ? { id } : {}),
              ...(model ? { model } : {}),
            };
          }
        }
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        if (NeedleworkError.isInstance(error) || error instanceof (this.client.constructor as typeof OpenAI).APIError)
          throw error;
        // An event whose data is not JSON: the server sent something wrong, nothing was cut.
        if (error instanceof SyntaxError)
          throw invalidResponseError(this.client.baseURL, this.api, "an event of its stream is not valid JSON", error);
        throw streamInterruptedError(this.client.baseURL, this.api, error);
      }
      // The SDK ends a stream quietly when its request is aborted.
      if (signal?.aborted) throw abortReason(signal);
      if (ended === undefined) throw streamInterruptedError(this.client.baseURL, this.api);
      for (const toolCall of ended.message.toolCalls ?? []) yield { type: "tool-call", toolCall };
      finished = true;
      const { usage, finishReason, id, model } = ended;
      yield {
        type: "finish",
        ...(usage ? { usage } : {}),
        ...(finishReason ? { finishReason } : {}),
        ...(id ? { id } : {}),
        ...(model ? { model } : {}),
      };
    } finally {
      // A consumer that stops reading closes the connection.
      if (!finished) link.controller.abort(signal?.reason);
      link.release();
    }
  }

  private async openStream(request: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<unknown>> {
    const outer = request.signal;
    try {
      const options = this.requestOptions(signal);
      const sent =
        this.api === "responses"
          ? this.client.responses.create({ ...this.responsesBody(request), stream: true }, options).withResponse()
          : this.client.chat.completions
              .create({ ...this.chatBody(request), stream: true, stream_options: { include_usage: true } }, options)
              .withResponse();
      const { data, response } = await untilAborted<{ data: AsyncIterable<unknown>; response: Response }>(sent, signal);
      const contentType = response.headers.get("content-type");
      if (!contentType?.includes("text/event-stream"))
        throw notJsonError(this.client.baseURL, contentType, this.api, "an event stream");
      return data;
    } catch (error) {
      if (outer?.aborted) throw abortReason(outer);
      throw describeFailure(error, this.client, this.api);
    }
  }

  private chatBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
    const { temperature, maxTokens, parallelToolCalls, extraBody } = this.options;
    const offered = request.tools.length > 0;
    return {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      // OpenAI refuses parallel_tool_calls without tools, so both are sent or neither.
      ...(offered ? { tools: this.openAITools(request.tools) } : {}),
      ...(offered && parallelToolCalls !== undefined ? { parallel_tool_calls: parallelToolCalls } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { [this.maxTokensField]: maxTokens }),
      ...extraBody,
    } as ChatCompletionCreateParamsNonStreaming;
  }

  private responsesBody(request: ChatRequest): ResponseCreateParamsNonStreaming {
    const { temperature, maxTokens, parallelToolCalls, extraBody } = this.options;
    const offered = request.tools.length > 0;
    return {
      model: this.model,
      input: toResponsesInput(request.messages),
      ...(offered ? { tools: toResponsesTools(this.openAITools(request.tools)) } : {}),
      ...(offered && parallelToolCalls !== undefined ? { parallel_tool_calls: parallelToolCalls } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { max_output_tokens: maxTokens }),
      ...extraBody,
    } as ResponseCreateParamsNonStreaming;
  }

  private requestOptions(signal: AbortSignal): { signal: AbortSignal; maxRetries?: number } {
    const { client, maxRetries } = this.options;
    return { signal, ...(client !== undefined && maxRetries !== undefined ? { maxRetries } : {}) };
  }

  /** A body as the SDK would parse it: JSON when the content type says so, else its text. */
  private async parsed(response: Response): Promise<unknown> {
    const text = await response.text();
    if (!response.headers.get("content-type")?.includes("json")) return text;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw invalidResponseError(this.client.baseURL, this.api, "its JSON body is cut off or malformed", error);
    }
  }

  /** The parsed body, if it is the JSON object the API sends (with its `field` array). */
  private checked<T>(data: unknown, response: Response, field: string): T {
    const baseURL = this.client.baseURL;
    if (typeof data === "string") throw notJsonError(baseURL, response.headers.get("content-type"), this.api);
    if (typeof data !== "object" || data === null) throw invalidResponseError(baseURL, this.api, "an empty body");
    if (!Array.isArray((data as Record<string, unknown>)[field]))
      throw invalidResponseError(baseURL, this.api, `a JSON body without '${field}'`);
    return data as T;
  }

  private openAITools(definitions: readonly ToolDefinition[]): OpenAIFunctionTool[] {
    let tools = this.tools.get(definitions);
    if (!tools) {
      tools = toOpenAITools(definitions, { strict: this.options.strict ?? OPENAI_CHAT_CLIENT_DEFAULTS.strict });
      this.tools.set(definitions, tools);
    }
    return tools;
  }
}
