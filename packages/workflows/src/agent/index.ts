export { createAgent } from "./agent.js";
export { Agent, type DeclaredAgentClass, declaredAgentOf } from "./declared-agent.js";
export { AGENT_DEFAULTS } from "./agent-defaults.js";
export type { AgentDefinition, AgentDeps, CreateAgentOptions, ResumeOptions, RunOptions } from "./agent.options.js";
export type {
  ApprovalDecision,
  ApprovalDecisions,
  ApprovalPolicy,
  ApprovalRequest,
} from "./approvals/approval-options.js";
export type {
  AgentRunResult,
  AgentRunResultBase,
  AgentRunStatus,
  AwaitingApprovalRunResult,
  CompletedRunResult,
  Recovery,
  RunHealth,
  StoppedRunResult,
  ToolCallRecord,
} from "@needlework/core/events";
export type {
  ChatAssistantMessage,
  ChatClient,
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
} from "@needlework/core";
export type { AgentCheckpoint, CheckpointJournal, PendingApproval } from "./approvals/checkpoint.js";
export { CheckpointError, type CheckpointErrorCode } from "./approvals/checkpoint-error.js";
export {
  type DeadLetterEntry,
  type DeadLetterQueue,
  InMemoryDeadLetterQueue,
} from "@needlework/durable";
export {
  type DeadLetterReadResult,
  FileDeadLetterQueue,
  type SkippedDeadLetterLine,
} from "@needlework/durable";
export type { FinalAnswerOptions } from "./policies/final-answer.js";
export {
  AgentHookError,
  type AgentHookName,
  type AgentHooks,
  type IterationEndInfo,
  type IterationStartInfo,
  type ToolCallInfo,
} from "./hooks.js";
export { TOKEN_BUDGET_DEFAULTS, type TokenBudget } from "./policies/budgets.js";
export {
  FileResumedCheckpointStore,
  InMemoryResumedCheckpointStore,
  type ResumedCheckpointStore,
} from "./approvals/claims.js";
export {
  ScriptedChatClient,
  type ScriptedChatClientOptions,
  ScriptExhaustedError,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "@needlework/core";
export type { ResumeStreamOptions, StreamOptions } from "./agent.js";
export type {
  AgentEvent,
  AgentEventMark,
  AgentEventType,
  ApprovalRequiredEvent,
  CorrectionEvent,
  RunEndEvent,
  RunHealthEvent,
  RunStartEvent,
  TextDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
  ToolRetryEvent,
  TurnEndEvent,
  TurnStartEvent,
} from "@needlework/core/events";
export {
  type AgentRunStream,
  type AgentRunStreamOptions,
  createAgentRunStream,
  DEFAULT_STREAM_BUFFER,
  type RunEventSink,
} from "./stream/agent-run-stream.js";
export { ChatStreamIncompleteError } from "@needlework/core";
export { type RunErrorFrame, toServerSentEvents } from "./stream/server-sent-events.js";
export { toUiMessageStream, type UiMessageChunk } from "./stream/ui-message-stream.js";
export { claimsSuccess, type SuccessClaimDetector } from "./policies/success-claim.js";
export { FileRunJournal, FileRunStore } from "@needlework/durable";
export { InMemoryRunJournal, InMemoryRunStore } from "@needlework/durable";
export type {
  AgentStore,
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "@needlework/durable";
export { RunStoreError, type RunStoreErrorCode } from "@needlework/durable";
