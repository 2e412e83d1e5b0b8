export { toAiSdkTools, type AiSdkTool, type AiSdkToolCallInfo, type AiSdkToolSet, type AiSdkToolsOptions } from "./to-ai-sdk-tools.js";
export type { UnhandledToolErrorHandler } from "@needlework/core";
