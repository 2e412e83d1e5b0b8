import type { ChatClient, ChatMessage, ToolInvoker, ToolOutcome } from "@needlework/core";
import type { RunTelemetry } from "@needlework/otel";
import type {
  AwaitingApprovalRunResult,
  CompletedRunResult,
  StoppedRunResult,
  ToolCallRecord,
} from "@needlework/core/events";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import type { ApprovalRecord, DeadLetterQueue, DurableExecution, JournaledRun } from "@needlework/durable";
import type { BudgetState } from "../policies/budgets.js";
import type { StallState } from "../policies/stall.js";
import type { RunListener } from "../events/run-events.js";
import type { CallGate } from "./call-gate.types.js";
import type { CallIdentities } from "./round-call.js";
import type { LedgerState } from "./run-ledger.js";

/** Everything a run needs from its agent. @internal */
export interface AgentRuntime {
  readonly options: ResolvedAgentOptions;
  /** The tools the agent offers and allows (scoped by `functionGroups`/`functions`). */
  readonly invoker: ToolInvoker;
  /** Every tool of the pipeline: the runtime's own compensate calls run through it. */
  readonly runtimeInvoker: ToolInvoker;
  readonly redact: (value: unknown) => unknown;
  readonly formatOutcome: (outcome: ToolOutcome) => string;
  readonly deadLetters: DeadLetterQueue;
  readonly key: Uint8Array;
  /** The plugins' observers of runs (`observeRun`): each run asks each for a subscriber of its events. */
  readonly runObservers?: readonly ((runId: string) => RunListener | undefined)[];
  /** The plugins' call gates (the injection policy), asked before every round. */
  readonly callGates?: readonly CallGate[];
  /** The plugins' telemetry subscriber (composed): the run's start, end and error, and its model calls. */
  readonly telemetry?: RunTelemetry;
}

/**
 * A runtime bound to a run's journal: what the loop runs over. Every run has one (the built-in
 * journal in memory by default, a store's, or an engine's), so these members are required.
 * @internal
 */
export interface JournaledRuntime extends AgentRuntime {
  /** The port every journaled step of the run goes through: model turns, round starts, tool calls, decisions. */
  readonly execution: DurableExecution;
  /** True while the run re-walks what its journal holds: its events are marked `replayed` (the loop never reads it). */
  readonly replaying: () => boolean;
  /**
   * The run's journal as it stands, serialized: what a pause's checkpoint carries (signed).
   */
  readonly journal: () => JournaledRun;
  /** Hands a round's verified decision records to the run's record, kept with each call's start. */
  readonly recordApprovals: (records: ReadonlyMap<string, ApprovalRecord>) => void;
  /**
   * Records the outcome of a call the loop answered without running it (denied, over a budget,
   * refused, skipped) through the execution's `call`, the one path outcomes are recorded on;
   * nothing when the execution recorded that outcome already.
   */
  readonly answer: (call: AnsweredCall, outcome: ToolOutcome) => Promise<void> | undefined;
  /** The agent's chat client as given (`options.chatClient` is the journal's): telemetry names the run's model by it. */
  readonly telemetryClient?: ChatClient;
}

/** A call the loop answers itself: who it is and the key its round assigned. @internal */
export interface AnsweredCall {
  readonly callId: string;
  readonly tool: string;
  readonly arguments: unknown;
  readonly idempotencyKey: string;
}

/** A call's evidence of a decision: a signed record, or "settled" (its outcome is journaled). @internal */
export type ApprovalEvidence = ApprovalRecord | "settled";

/**
 * Which calls of a round need a decision, and the evidence there is for them. The loop runs a
 * gated call only with a record that verifies as "approved" for that run, call, tool and
 * arguments (or a recorded outcome). @internal
 */
export interface RoundGate {
  /** Per call of the round, in its order. */
  readonly gated: readonly boolean[];
  readonly evidence: ReadonlyMap<string, ApprovalEvidence>;
}

/** A run's state: plain JSON, so a checkpoint carries it whole. @internal */
export interface RunState {
  readonly runId: string;
  messages: ChatMessage[];
  /** Model turns taken. */
  iteration: number;
  /** The run's one correction turn (guardrail or final-answer contract) is used. */
  corrected: boolean;
  calls: ToolCallRecord[];
  ledger: LedgerState;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  budget: BudgetState;
  stall: StallState;
  /**
   * The first call's `idempotencyKey` per "same tool, same arguments" (`RoundCall.key`): a repeat
   * in the run reuses it, so a write whose outcome was unknown is not done twice by a careful API.
   */
  idempotencyKeys?: Record<string, string>;
  /**
   * The message ids of tool results that were untrusted content (outcomes marked
   * `provenance: "untrusted"`). Written as each outcome is booked, so a journal replay rebuilds it
   * from the recorded outcomes and a checkpoint carries it, signed.
   */
  untrusted?: string[];
}

/**
 * What names the next turn's calls (see `prepareRound`): the ids the run has used (its recorded
 * calls) and its keys. Derived from the state alone, so a replay or a resume names them the same.
 * @internal
 */
export function callIdentities(state: RunState): CallIdentities {
  return {
    runId: state.runId,
    turn: state.iteration,
    taken: new Set(state.calls.map((c) => c.callId)),
    keys: (state.idempotencyKeys ??= {}),
  };
}

/** How a run ends: its status and the fields that status carries (see {@link AgentRunResult}). @internal */
export type RunEnd =
  | Pick<CompletedRunResult, "status" | "output">
  | Pick<AwaitingApprovalRunResult, "status" | "checkpoint" | "pendingApprovals">
  | Pick<StoppedRunResult, "status" | "reason">;
