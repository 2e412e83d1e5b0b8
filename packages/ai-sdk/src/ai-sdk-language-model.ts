/**
 * The part of an AI SDK language model `AiSdkChatClient` uses, written structurally so one build
 * accepts the model spec of every supported AI SDK major: `LanguageModelV2` (AI SDK 5 providers),
 * `LanguageModelV3` (AI SDK 6) and `LanguageModelV4` (AI SDK 7). Any provider's model fits:
 * `openai("gpt-4o-mini")`, `anthropic("claude-sonnet-4-5")`, `ollama("llama3.1")`, ...
 *
 * @example
 * ```ts
 * import { openai } from "@ai-sdk/openai";
 * const model: AiSdkLanguageModel = openai("gpt-4o-mini");
 * ```
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v2" | "v3" | "v4";
  /** The provider id, e.g. `openai.chat`, `anthropic.messages`, `amazon-bedrock`. */
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: AiSdkCallOptions): PromiseLike<AiSdkGenerateResult>;
  doStream(options: AiSdkCallOptions): PromiseLike<{ readonly stream: ReadableStream<AiSdkStreamPart> }>;
}

/**
 * The call options `AiSdkChatClient` sends (a subset of the spec's call options).
 *
 * @example
 * ```ts
 * const options: AiSdkCallOptions = { prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] };
 * ```
 */
export interface AiSdkCallOptions {
  // Mutable arrays and a narrow schema type on purpose: the spec's `doGenerate` is a function
  // property, so these options must be assignable to every spec's own call options.
  readonly prompt: AiSdkPromptMessage[];
  readonly tools?: Array<{
    readonly type: "function";
    readonly name: string;
    readonly description?: string;
    readonly inputSchema: AiSdkInputSchema;
  }>;
  readonly abortSignal?: AbortSignal;
}

/**
 * A tool's input JSON Schema (needlework's parameters schema, always an object schema).
 *
 * @example
 * ```ts
 * const schema = definition.parameters as AiSdkInputSchema;
 * ```
 */
export interface AiSdkInputSchema {
  readonly type: "object";
}

/**
 * One prompt message in the spec's shape (the same in V2, V3 and V4).
 *
 * @example
 * ```ts
 * const message: AiSdkPromptMessage = { role: "system", content: "You look up orders." };
 * ```
 */
export type AiSdkPromptMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: Array<{ readonly type: "text"; readonly text: string }> }
  | {
      readonly role: "assistant";
      readonly content: Array<
        | { readonly type: "text"; readonly text: string }
        | {
            readonly type: "tool-call";
            readonly toolCallId: string;
            readonly toolName: string;
            readonly input: unknown;
          }
      >;
    }
  | {
      readonly role: "tool";
      readonly content: Array<{
        readonly type: "tool-result";
        readonly toolCallId: string;
        readonly toolName: string;
        readonly output: { readonly type: "text"; readonly value: string };
      }>;
    };

/**
 * The fields of a `doGenerate` result `AiSdkChatClient` reads.
 *
 * @example
 * ```ts
 * const result = await model.doGenerate({ prompt }); // result.content, result.usage, result.finishReason
 * ```
 */
export interface AiSdkGenerateResult {
  readonly content: ReadonlyArray<AiSdkContentPart>;
  /** A string in V2; `{ unified, raw }` from V3 on. */
  readonly finishReason: unknown;
  /** Flat numbers in V2; `{ inputTokens: { total }, outputTokens: { total } }` from V3 on. */
  readonly usage: unknown;
}

/**
 * One content part of a result, or one part of a stream (discriminated on `type`).
 *
 * @example
 * ```ts
 * const part: AiSdkContentPart = { type: "tool-call", toolCallId: "c1", toolName: "getOrderStatus", input: "{}" };
 * ```
 */
export interface AiSdkContentPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly providerExecuted?: boolean;
}

/**
 * One part of a `doStream` stream: content parts plus `text-delta`, `finish` and `error`.
 *
 * @example
 * ```ts
 * const part: AiSdkStreamPart = { type: "text-delta", delta: "Hello" };
 * ```
 */
export interface AiSdkStreamPart extends AiSdkContentPart {
  readonly delta?: string;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
  readonly error?: unknown;
}
