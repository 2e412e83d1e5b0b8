export {
  toAiSdkTools,
  type AiSdkTool,
  type AiSdkToolCallInfo,
  type AiSdkToolSet,
  type AiSdkToolsOptions,
} from "./to-ai-sdk-tools.js";
export {
  toAiSdkToolApproval,
  type AiSdkToolApproval,
  type AiSdkToolApprovalFunction,
  type AiSdkToolApprovalOptions,
  type AiSdkToolApprovalRequest,
  type AiSdkToolApprovalStatus,
} from "./to-ai-sdk-tool-approval.js";
export type { UnhandledToolErrorHandler } from "@needlework/core";
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
export { toUiMessageStream, type UiMessageChunk, type UiMessageSourceEvent } from "./ui-message-stream.js";
