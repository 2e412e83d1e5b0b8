import type { ChatMessage, ToolInvoker, ToolOutcome } from "@needlework/core";
import type {
  AwaitingApprovalRunResult,
  CompletedRunResult,
  StoppedRunResult,
  ToolCallRecord,
} from "../agent-run-result.js";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import type { ApprovalRecord, DeadLetterQueue, JournaledRun } from "@needlework/durable";
import type { BudgetState } from "../policies/budgets.js";
import type { StallState } from "../policies/stall.js";
import type { RunListener } from "../events/run-events.js";
import type { CallGate } from "./call-gate.types.js";
import type { CallIdentities, RoundCall } from "./round-call.js";
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
  /** True while a resumed run replays its journal: its events are marked `replayed` (the loop never reads it). */
  readonly replaying?: () => boolean;
  /**
   * The evidence of a decision the run's record holds for a gated round's calls: a call's decision
   * record (checked by the loop with the key before anything runs), or `"settled"` when its outcome
   * is recorded (the runtime answers the call from it). A recorded call start alone proves nothing.
   * A runtime without a record has none (the round pauses). The loop asks the same question of
   * every run: whether the answer comes from a replay is the runtime's business, not the loop's.
   */
  readonly recordedDecisions?: (round: readonly RoundCall[]) => ReadonlyMap<string, ApprovalEvidence>;
  /**
   * The run's journal as it stands, serialized: what a pause's checkpoint carries (signed). Every run
   * has one (the agent runs every run over its journal).
   */
  readonly journal?: () => JournaledRun;
  /** Hands a round's verified decision records to the run's record, kept with each call's start. */
  readonly recordApprovals?: (records: ReadonlyMap<string, ApprovalRecord>) => void;
  /**
   * Hands an outcome to the run's record: before a round runs, each of its calls that do not run
   * (denied, over a budget, refused by a gate); as the round is booked, every outcome of the round
   * and its compensations. The record keeps each once: the journal, a checkpoint and the inspector
   * show them.
   */
  readonly recordOutcome?: (callId: string, outcome: ToolOutcome) => void;
  /** The plugins' observers of runs (`observeRun`): each run asks each for a subscriber of its events. */
  readonly runObservers?: readonly ((runId: string) => RunListener | undefined)[];
  /** The plugins' call gates (the injection policy), asked before every round. */
  readonly callGates?: readonly CallGate[];
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
