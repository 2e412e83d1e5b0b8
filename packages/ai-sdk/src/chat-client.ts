/**
 * `@needlework/ai-sdk/chat-client`: the AI SDK language-model chat client alone. Its types are structural
 * and import nothing from `ai`, so an app that drives a needlework agent with an AI SDK provider model
 * type-checks without `ai` installed (with `skipLibCheck: false` too). The main entry also exports these
 * names, beside `toAiSdkTools`, whose types come from `ai`.
 *
 * @example
 * ```ts
 * import { AiSdkChatClient } from "@needlework/ai-sdk/chat-client";
 * const chat = new AiSdkChatClient(openai("gpt-4o-mini"));
 * ```
 * @packageDocumentation
 */
export { AiSdkChatClient, AiSdkChatError, type AiSdkChatClientOptions } from "./ai-sdk-chat-client.js";
export type {
  AiSdkCallOptions,
  AiSdkContentPart,
  AiSdkGenerateResult,
  AiSdkInputSchema,
  AiSdkLanguageModel,
  AiSdkPromptMessage,
  AiSdkStreamPart,
} from "./ai-sdk-language-model.js";
export { toProviderName } from "./provider-name.js";
