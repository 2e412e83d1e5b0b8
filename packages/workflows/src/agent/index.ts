export { createAgent } from "./agent.js";
export { Agent, type DeclaredAgentClass, declaredAgentOf } from "./declared-agent.js";
export {
  AGENT_DEFAULTS,
  type AgentDefinition,
  type AgentDeps,
  type ApprovalDecision,
  type ApprovalDecisions,
  type ApprovalPolicy,
  type ApprovalRequest,
  type CreateAgentOptions,
  type ResumeOptions,
  type RunOptions,
} from "./agent.options.js";
export type { AgentRunResult, AgentRunStatus, Recovery, RunHealth, ToolCallRecord } from "./agent-run-result.js";
export type {
  ChatAssistantMessage,
  ChatClient,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatSystemMessage,
  ChatToolCall,
  ChatToolMessage,
  ChatUsage,
  ChatUserMessage,
} from "./chat-client.js";
export type { AgentCheckpoint, PendingApproval } from "./checkpoint.js";
export { CheckpointError, type CheckpointErrorCode } from "./checkpoint-error.js";
export { type DeadLetterEntry, type DeadLetterQueue, InMemoryDeadLetterQueue } from "./dead-letter-queue.js";
export { type DeadLetterReadResult, FileDeadLetterQueue, type SkippedDeadLetterLine } from "./file-dead-letter-queue.js";
export type { FinalAnswerOptions } from "./final-answer.js";
export { AgentHookError, type AgentHookName, type AgentHooks, type IterationEndInfo, type IterationStartInfo, type ToolCallInfo } from "./hooks.js";
export { TOKEN_BUDGET_DEFAULTS, type TokenBudget } from "./budgets.js";
export { FileResumedCheckpointStore, InMemoryResumedCheckpointStore, type ResumedCheckpointStore } from "./resumed-checkpoint-store.js";
export { ScriptedChatClient, ScriptExhaustedError, type ScriptedStep, type ScriptedToolCall, type ScriptedTurn } from "./scripted-chat-client.js";
export { claimsSuccess, type SuccessClaimDetector } from "./success-claim.js";
