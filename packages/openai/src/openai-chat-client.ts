import { abortReason, NeedleworkError, type OpenAIFunctionTool, toOpenAITools, type ToolDefinition } from "@needlework/core";
import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import { OpenAI } from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { fromChatCompletion, toOpenAIMessages } from "./chat-completion-mapping.js";
import { checkOpenAIChatClientOptions, OPENAI_CHAT_CLIENT_DEFAULTS, type OpenAIChatClientOptions } from "./openai-chat-client.options.js";

// Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK refuses to start without one.
const NO_KEY = "no-key";

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function isOpenAIHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

function createSdkClient(options: OpenAIChatClientOptions): OpenAI {
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(process.env.OPENAI_API_KEY);
  const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(process.env.OPENAI_BASE_URL);
  if (apiKey === undefined && baseURL === undefined) {
    throw new NeedleworkError(
      "OPENAI_NOT_CONFIGURED",
      "OpenAIChatClient: no API key and no base URL. For OpenAI set OPENAI_API_KEY (or pass { apiKey }); " +
        "for a local OpenAI-compatible server set OPENAI_BASE_URL (or pass { baseURL }), e.g. http://localhost:11434/v1 for Ollama or http://localhost:8000/v1 for vLLM.",
    );
  }
  return new OpenAI({
    apiKey: apiKey ?? NO_KEY,
    baseURL: baseURL ?? OPENAI_CHAT_CLIENT_DEFAULTS.baseURL,
    maxRetries: options.maxRetries ?? OPENAI_CHAT_CLIENT_DEFAULTS.maxRetries,
    timeout: options.timeoutMs ?? OPENAI_CHAT_CLIENT_DEFAULTS.timeoutMs,
  });
}

/**
 * A {@link ChatClient} over the official `openai` SDK's chat completions with tools, for OpenAI or
 * any OpenAI-compatible server (Ollama, vLLM, llama.cpp). Messages map field by field (tool-call
 * ids kept both ways), tools go out through core's `toOpenAITools`, and the usage and
 * `finish_reason` come back.
 *
 * Errors: the SDK's errors propagate once its own retries are spent (`RateLimitError`,
 * `InternalServerError`, `AuthenticationError`, `BadRequestError`, `APIConnectionError`, ... all
 * `OpenAI.APIError`), and `agent.run()` rejects with them. Cancellation: the request's signal
 * aborts the HTTP call and `complete()` rejects at once with an AbortError (the signal's reason),
 * also while the SDK waits out a `retry-after`.
 *
 * @example
 * ```ts
 * const chatClient = new OpenAIChatClient({ model: "gpt-4o-mini" }); // OPENAI_API_KEY from the environment
 * const local = new OpenAIChatClient({ baseURL: "http://localhost:11434/v1", model: "llama3.1" }); // Ollama
 * const agent = factory.createAgent({ name: "support", instructions: "Answer order questions.", chatClient });
 * ```
 */
export class OpenAIChatClient implements ChatClient {
  /** The SDK client the requests go through (yours when you passed `client`). */
  readonly client: OpenAI;
  readonly model: string;
  private readonly options: OpenAIChatClientOptions;
  private readonly maxTokensField: "max_completion_tokens" | "max_tokens";
  /** An invoker's `definitions` is one array for its lifetime, so each is converted once. */
  private readonly tools = new WeakMap<readonly ToolDefinition[], OpenAIFunctionTool[]>();

  constructor(options: OpenAIChatClientOptions) {
    checkOpenAIChatClientOptions(options);
    this.options = { ...options };
    this.model = options.model;
    this.client = options.client ?? createSdkClient(options);
    this.maxTokensField = options.maxTokensField ?? (isOpenAIHost(this.client.baseURL) ? "max_completion_tokens" : "max_tokens");
  }

  /**
   * The chat-completions body `complete(request)` sends: handy to log or to check what a model is told.
   *
   * @example
   * ```ts
   * console.log(JSON.stringify(chatClient.requestBody({ messages, tools: factory.tools.definitions })));
   * ```
   */
  requestBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
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

  /**
   * One chat completion for the agent's messages and tools.
   *
   * @example
   * ```ts
   * const { message, usage, finishReason } = await chatClient.complete({ messages, tools: factory.tools.definitions, signal });
   * ```
   */
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const { signal } = request;
    if (signal?.aborted) throw abortReason(signal);
    const body = this.requestBody(request);
    // The SDK never removes the listener it adds to the signal it is given, so it gets a signal of
    // its own per request; the caller's (often a whole run's) keeps none once this call settles.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const completion = this.client.chat.completions.create(body, {
        signal: controller.signal,
        ...(this.options.client !== undefined && this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
      });
      return fromChatCompletion(await untilAborted(completion, controller.signal));
    } catch (error) {
      // The SDK reports an abort as APIUserAbortError; callers check for an AbortError.
      if (signal?.aborted) throw abortReason(signal);
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
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

/**
 * Settles with `completion`, or rejects as soon as `signal` aborts: the SDK sleeps out a
 * `retry-after` without watching its signal, and an abort must not wait for that.
 */
function untilAborted(completion: Promise<ChatCompletion>, signal: AbortSignal): Promise<ChatCompletion> {
  return new Promise<ChatCompletion>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(abortReason(signal)), { once: true });
    completion.then(resolve, reject);
  });
}
