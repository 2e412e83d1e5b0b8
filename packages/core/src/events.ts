/**
 * `@needlework/core/events`: the run contract, as types. What a run emits (`AgentEvent` and its
 * member events), what it returns (`AgentRunResult` and its variants, `AgentRunStatus`, `RunHealth`),
 * the signed checkpoint of a paused run (`AgentCheckpoint`, `PendingApproval`) and the journal
 * records a checkpoint and a run store carry (`JournaledRun` and its parts). `@needlework/workflows`
 * produces them and re-exports the same names; adapters (`@needlework/ai-sdk`'s encoder,
 * `@needlework/otel`'s tracer) read them from here, so they need no dependency on workflows.
 * Types only: importing this entry loads no code.
 *
 * @example
 * ```ts
 * import type { AgentEvent } from "@needlework/core/events";
 *
 * function logEvent(event: AgentEvent): void {
 *   if (event.type === "tool-result") console.log(event.tool, event.outcome.status);
 *   if (event.type === "run-end") console.log(event.result.status);
 * }
 * ```
 * @packageDocumentation
 */
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
} from "./run/agent-event.js";
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
} from "./run/agent-run-result.js";
export type { AgentCheckpoint, CheckpointJournal, PendingApproval } from "./run/agent-checkpoint.js";
export type {
  ApprovalRecord,
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
} from "./run/journaled-run.js";
