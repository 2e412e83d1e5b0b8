import "reflect-metadata";

export { AgentFunction, type AgentFunctionDecorator, type AgentFunctionMethod } from "./agent-function.decorator.js";
export { AgentFunctionGroup } from "./agent-function-group.decorator.js";
export type {
  ChatAssistantMessage,
  ChatClient,
  ChatEndpoint,
  ChatFinishPart,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatStreamPart,
  ChatSystemMessage,
  ChatTextDelta,
  ChatToolCall,
  ChatToolCallPart,
  ChatToolMessage,
  ChatUsage,
  ChatUserMessage,
} from "./chat-client.js";
export {
  ScriptedChatClient,
  type ScriptedChatClientOptions,
  ScriptExhaustedError,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "./scripted-chat-client.js";
export { ChatStreamIncompleteError } from "./collect-chat-stream.js";
export type {
  AgentFunctionDescriptor,
  AgentFunctionGroupOptions,
  AgentFunctionOptions,
  CompensateOption,
  RoundPolicy,
  ToolClass,
  ToolInputSchema,
} from "./agent-function.options.js";
export {
  AgentFunctionRegistry,
  agentFunctionRegistry,
  type AgentFunctionGroupInfo,
} from "./agent-function-registry.js";
export { collectAgentFunctions, registerAgentFunctions } from "./register-agent-functions.js";
export {
  defineTool,
  isDefinedTool,
  type DefinedTool,
  type DefineJsonSchemaToolOptions,
  type DefineToolCommonOptions,
  type DefineToolOptions,
} from "./define-tool.js";
export {
  abortReason,
  CircuitOpenError,
  isAbortError,
  NeedleworkError,
  TimeoutError,
  ToolDefinitionError,
  ToolError,
  ToolRegistrationError,
  TransientError,
  type NeedleworkErrorOptions,
  type ToolErrorOptions,
} from "./errors.js";
export {
  errorCodeOf,
  httpStatusOf,
  isTransientError,
  mapHttpStatus,
  mapThrownError,
  provesNotApplied,
  retryAfterMsFromHeaders,
  retryAfterMsOf,
  TRANSIENT_NETWORK_CODES,
  type ErrorClass,
  type ErrorMapRule,
  type ErrorMatcher,
  type FailureEffect,
  type MappedError,
} from "./error-mapping.js";
export { InvalidOptionError } from "./invalid-option-error.js";
export {
  detectFailure,
  MAX_SCANNED_ITEMS,
  type FailedItem,
  type FailuresOption,
  type ReturnedFailure,
} from "./returned-failure.js";
export {
  formatToolOutcome,
  toolOutcomeEnvelope,
  type FormatToolOutcomeOptions,
  type ToolOutcomeStyle,
} from "./format-outcome.js";
export { createHooks, hooks, type ToolHooks } from "./hooks.js";
export { invokeForModel, type UnhandledToolErrorHandler } from "./invoke-for-model.js";
export { safeJsonStringify, toJsonSafe, type JsonSafeOptions, type JsonValue } from "./json-safe.js";
export { DEFAULT_ARGUMENT_LIMITS, type ArgumentLimits } from "./tool-arguments.js";
export {
  argumentsHash,
  checkApprovalArguments,
  MAX_APPROVAL_ARGUMENTS_CHARS,
  type ApprovalArguments,
  type ApprovalArgumentsOptions,
} from "./approval-arguments.js";
export {
  isUntrustedOutcome,
  markUntrusted,
  toolEffects,
  UNTRUSTED_CONTENT,
  type ToolProvenance,
} from "./tool-provenance.js";
export type {
  NextFunction,
  ToolCallContext,
  ToolCallReport,
  ToolContext,
  ToolMiddleware,
  ToolRetryReport,
} from "./agent-function.options.js";
export { toOpenAIStrictSchema, type OpenAIStrictResult } from "./openai-strict-schema.js";
export {
  toAnthropicTools,
  toMcpTools,
  strictFallbackReasons,
  toOpenAITools,
  toolDefinitionOf,
  type AnthropicTool,
  type JsonSchema,
  type McpTool,
  type OpenAIFunctionTool,
  type OpenAIToolsOptions,
  type ToolDefinition,
  type ToolFlags,
} from "./tool-definition.js";
export {
  createToolInvoker,
  type InvokeInfo,
  type InvokeOptions,
  type OutcomeObserver,
  type ToolCall,
  type ToolInvoker,
  type ToolInvokerOptions,
} from "./tool-invoker.js";
export {
  createToolOutcome,
  safeErrorCode,
  isFailedOutcome,
  isToolOutcome,
  toolResultToOutcome,
  toToolOutcome,
  type ArtifactReference,
  type ToolOutcome,
  type ToolOutcomeInit,
  type ToolOutcomeMetadata,
  type ToolOutcomeStatus,
  type TruncationInfo,
} from "./tool-outcome.js";
export {
  errorTypeName,
  isToolResult,
  ToolResult,
  unhandledFailureMessage,
  type FailOptions,
  type FailToolResult,
  type OkToolResult,
  type PartialFailure,
  type PartialItems,
  type PartialToolResult,
  type ToolFailure,
  type UnhandledFailureFormatter,
  type UnhandledFailureOptions,
} from "./tool-result.js";
// The built-in secret detectors' names and the checksums they use: public, so the redaction options of
// @needlework/workflows can name them without its types importing core's /internal entry.
export { DETECTOR_NAMES, type DetectorName } from "./secrets/text-detectors.js";
export { ibanValid, luhnValid } from "./secrets/secret-checks.js";
