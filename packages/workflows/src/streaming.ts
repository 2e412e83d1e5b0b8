/**
 * `@needlework/workflows/streaming`: the event stream's parts, for those who consume or encode it
 * themselves. Each `AgentEvent` member type (core's, from `@needlework/core/events`, re-exported), the
 * sink a run emits into, `createAgentRunStream` and the UI-message chunk type (deprecated: it is
 * `@needlework/ai-sdk`'s `UiMessageChunk`). An application uses `agent.stream()`, `AgentEvent`,
 * `AgentRunStream` and `toServerSentEvents` from the main entry, and `toUiMessageStream` from
 * `@needlework/ai-sdk`.
 *
 * @example
 * ```ts
 * import type { ToolResultEvent } from "@needlework/workflows/streaming";
 * const failed = (e: ToolResultEvent) => e.outcome.status !== "ok";
 * ```
 * @packageDocumentation
 */
export {
  ChatStreamIncompleteError,
  createAgentRunStream,
  DEFAULT_STREAM_BUFFER,
  type AgentEvent,
  type AgentEventMark,
  type AgentEventType,
  type AgentRunStream,
  type AgentRunStreamOptions,
  type ApprovalRequiredEvent,
  type CorrectionEvent,
  type RunEndEvent,
  type RunErrorFrame,
  type RunEventSink,
  type RunHealthEvent,
  type RunStartEvent,
  type TextDeltaEvent,
  type ToolCallEvent,
  type ToolResultEvent,
  type ToolRetryEvent,
  type TurnEndEvent,
  type TurnStartEvent,
  type UiMessageChunk,
} from "./agent/index.js";
export type { RunObserved, RunObserver } from "./plugin.js";
