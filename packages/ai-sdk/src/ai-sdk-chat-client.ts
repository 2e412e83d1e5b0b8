import { ownOptions } from "@needlework/core/kit";
import {
  NeedleworkError,
  type ChatClient,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatToolCall,
} from "@needlework/core";
import type { AiSdkLanguageModel, AiSdkStreamPart } from "./ai-sdk-language-model.js";
import { toCallOptions, toChatUsage, toFinishReason, toToolCall } from "./language-model-mapping.js";
import { toProviderName } from "./provider-name.js";

/**
 * Thrown by {@link AiSdkChatClient} when the model's stream reports an error part
 * (`AI_SDK_STREAM_ERROR`, with the provider's error as `cause`) or ends without its `finish` part
 * (`AI_SDK_STREAM_INCOMPLETE`).
 *
 * @example
 * ```ts
 * try { await agent.run("Hi"); } catch (e) { if (e instanceof AiSdkChatError) console.log(e.code); }
 * ```
 */
export class AiSdkChatError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_AiSdkChatError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(AiSdkChatError, "name", { value: "AiSdkChatError" });
  }
}

/** Options of {@link AiSdkChatClient}. */
export interface AiSdkChatClientOptions {
  /**
   * The `gen_ai.provider.name` traces carry. Default: derived from the model's provider id
   * (`openai.chat` is `openai`, `amazon-bedrock` is `aws.bedrock`).
   */
  readonly provider?: string;
}

/**
 * A needlework {@link ChatClient} over any AI SDK language model (the model spec of AI SDK 5, 6 or
 * 7: `LanguageModelV2`, `V3` or `V4`), so the agent loop runs on every AI SDK provider with tool
 * calls, usage and streamed text deltas. It calls the model's `doGenerate`/`doStream` directly:
 * needlework's loop runs the tools, the AI SDK's `generateText` is not involved.
 *
 * @example
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * const agent = factory.createAgent({ chatClient: new AiSdkChatClient(anthropic("claude-sonnet-4-5")) });
 * const result = await agent.run("Where is ORD-1?");
 * ```
 */
export class AiSdkChatClient implements ChatClient {
  readonly provider: string;

  constructor(
    readonly model: AiSdkLanguageModel,
    options: AiSdkChatClientOptions = {},
  ) {
    if (typeof model !== "object" || model === null || typeof model.doGenerate !== "function") {
      throw new TypeError(
        'AiSdkChatClient: pass an AI SDK language model object (e.g. openai("gpt-4o-mini")), not a model id string.',
      );
    }
    // Own properties only: a polluted Object.prototype names no provider.
    this.provider = ownOptions(options, ["provider"]).provider ?? toProviderName(model.provider);
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const result = await this.model.doGenerate(toCallOptions(request));
    const text = result.content.flatMap((part) => (part.type === "text" && part.text ? [part.text] : [])).join("");
    const toolCalls = result.content.flatMap((part) => toToolCall(part) ?? []);
    const usage = toChatUsage(result.usage);
    const finishReason = toFinishReason(result.finishReason);
    return {
      message: { ...(text ? { content: text } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      ...(usage ? { usage } : {}),
      ...(finishReason === undefined ? {} : { finishReason }),
    };
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    const { stream } = await this.model.doStream(toCallOptions(request));
    const reader = stream.getReader();
    let finished = false;
    try {
      for (;;) {
        request.signal?.throwIfAborted();
        const { done, value } = await reader.read();
        if (done) break;
        const part = this.#toStreamPart(value);
        if (part === undefined) continue;
        if (part.type === "finish") finished = true;
        yield part;
      }
      request.signal?.throwIfAborted();
    } finally {
      await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
    if (!finished) {
      throw new AiSdkChatError(
        "AI_SDK_STREAM_INCOMPLETE",
        `The ${this.model.modelId} stream ended without a finish part; the response may be cut off. Check the provider's connection and logs.`,
      );
    }
  }

  #toStreamPart(part: AiSdkStreamPart): ChatStreamPart | undefined {
    if (part.type === "text-delta" && typeof part.delta === "string") return { type: "text-delta", delta: part.delta };
    if (part.type === "error") {
      throw new AiSdkChatError(
        "AI_SDK_STREAM_ERROR",
        `The ${this.model.modelId} stream reported an error; see the cause and the provider's logs.`,
        { cause: part.error },
      );
    }
    if (part.type === "finish") {
      const usage = toChatUsage(part.usage);
      const finishReason = toFinishReason(part.finishReason);
      return { type: "finish", ...(usage ? { usage } : {}), ...(finishReason === undefined ? {} : { finishReason }) };
    }
    const toolCall: ChatToolCall | undefined = toToolCall(part);
    return toolCall ? { type: "tool-call", toolCall } : undefined;
  }
}
