import type { ChatUsage } from "../chat-client.js";
import type { ToolOutcome } from "../tool-outcome.js";
import type { AgentCheckpoint, PendingApproval } from "./agent-checkpoint.js";
import type { AgentRunResult, RunHealth } from "./agent-run-result.js";

/**
 * What every {@link AgentEvent} may carry besides its own fields: `replayed: true` when a resumed
 * run replays it from its journal (it happened before; `agent.resumeRunStream()` shows those turns
 * again, then the live rest of the run). Live events leave it unset.
 *
 * @example
 * ```ts
 * if (event.type === "tool-result" && !event.replayed) console.log("new:", event.tool);
 * ```
 */
export interface AgentEventMark {
  readonly replayed?: true;
}

/**
 * The first event of a run (or of a resumed run).
 *
 * @example
 * ```ts
 * if (event.type === "run-start") console.log(`run ${event.runId} of ${event.agent}`);
 * ```
 */
export interface RunStartEvent extends AgentEventMark {
  readonly type: "run-start";
  readonly runId: string;
  /** The agent's name. */
  readonly agent: string;
}

/**
 * A model turn begins (1-based, the same number as `ToolCallRecord.round`).
 *
 * @example
 * ```ts
 * if (event.type === "turn-start") console.log(`-- turn ${event.turn}`);
 * ```
 */
export interface TurnStartEvent extends AgentEventMark {
  readonly type: "turn-start";
  readonly turn: number;
}

/**
 * A piece of the assistant's text, as the model writes it. The final turn's deltas join to
 * `result.text`.
 *
 * @example
 * ```ts
 * if (event.type === "text-delta") process.stdout.write(event.delta);
 * ```
 */
export interface TextDeltaEvent extends AgentEventMark {
  readonly type: "text-delta";
  readonly turn: number;
  readonly delta: string;
}

/**
 * The model asked for a tool call and the round is about to run it. Exactly one `tool-result`
 * with the same `callId` follows.
 *
 * @example
 * ```ts
 * if (event.type === "tool-call") console.log(`${event.tool}(${JSON.stringify(event.arguments)})`);
 * ```
 */
export interface ToolCallEvent extends AgentEventMark {
  readonly type: "tool-call";
  readonly turn: number;
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them: the raw JSON text or a parsed object. */
  readonly arguments: string | Record<string, unknown>;
}

/**
 * Resilience scheduled another attempt of a call: `attempt` failed (with `errorCode` when one is
 * known) and the next one starts after `delayMs`.
 *
 * @example
 * ```ts
 * if (event.type === "tool-retry") console.log(`${event.tool} retry after ${event.errorCode} in ${event.delayMs} ms`);
 * ```
 */
export interface ToolRetryEvent extends AgentEventMark {
  readonly type: "tool-retry";
  readonly callId: string;
  readonly tool: string;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly errorCode?: string;
}

/**
 * A call's final outcome, shaped and redacted exactly as the model reads it (never the exception).
 *
 * @example
 * ```ts
 * if (event.type === "tool-result") console.log(event.tool, event.outcome.status, event.outcome.errorCode ?? "");
 * ```
 */
export interface ToolResultEvent extends AgentEventMark {
  readonly type: "tool-result";
  readonly turn: number;
  readonly callId: string;
  readonly tool: string;
  readonly outcome: ToolOutcome;
}

/**
 * The `run_health` block the model reads after a round with a failure (that round's counts).
 *
 * @example
 * ```ts
 * if (event.type === "run-health" && event.health.blocking_failure) console.warn("blocking failure");
 * ```
 */
export interface RunHealthEvent extends AgentEventMark {
  readonly type: "run-health";
  readonly turn: number;
  readonly health: RunHealth;
}

/**
 * The run rejected a final answer once (a success claim over blocking failures, or a broken
 * `finalAnswer` contract) and asked the model for a correction.
 *
 * @example
 * ```ts
 * if (event.type === "correction") console.warn(`correction: ${event.reason}`);
 * ```
 */
export interface CorrectionEvent extends AgentEventMark {
  readonly type: "correction";
  readonly turn: number;
  readonly reason: string;
}

/**
 * The run paused for approvals; resume it with `agent.resumeStream(checkpoint, decisions)` (or
 * `agent.resume`). `run-end` follows with status `awaiting_approval`.
 *
 * @example
 * ```ts
 * if (event.type === "approval-required") await saveForReview(JSON.stringify(event.checkpoint));
 * ```
 */
export interface ApprovalRequiredEvent extends AgentEventMark {
  readonly type: "approval-required";
  readonly checkpoint: AgentCheckpoint;
  /** The calls that need a decision. */
  readonly pending: readonly PendingApproval[];
}

/**
 * A model turn and its round are done; `usage` is that turn's model call, when reported.
 *
 * @example
 * ```ts
 * if (event.type === "turn-end") console.log(`turn ${event.turn}: ${event.usage?.totalTokens ?? "?"} tokens`);
 * ```
 */
export interface TurnEndEvent extends AgentEventMark {
  readonly type: "turn-end";
  readonly turn: number;
  readonly usage?: ChatUsage;
}

/**
 * The last event: the run's result (the same value `stream.result` resolves with).
 *
 * @example
 * ```ts
 * if (event.type === "run-end") console.log(event.result.status);
 * ```
 */
export interface RunEndEvent extends AgentEventMark {
  readonly type: "run-end";
  readonly result: AgentRunResult;
}

/**
 * What `agent.stream()` yields, discriminated on `type`. The first event is `run-start`, the last
 * `run-end`; every `tool-call` is followed by exactly one `tool-result` with its `callId`.
 *
 * @example
 * ```ts
 * for await (const event of agent.stream("Where is ORD-1?")) {
 *   if (event.type === "text-delta") process.stdout.write(event.delta);
 *   if (event.type === "tool-result") console.log(event.tool, event.outcome.status);
 * }
 * ```
 */
export type AgentEvent =
  | RunStartEvent
  | TurnStartEvent
  | TextDeltaEvent
  | ToolCallEvent
  | ToolRetryEvent
  | ToolResultEvent
  | RunHealthEvent
  | CorrectionEvent
  | ApprovalRequiredEvent
  | TurnEndEvent
  | RunEndEvent;

/**
 * The `type` of an {@link AgentEvent}.
 *
 * @example
 * ```ts
 * const shown: AgentEventType[] = ["text-delta", "tool-call", "tool-result"];
 * ```
 */
export type AgentEventType = AgentEvent["type"];
