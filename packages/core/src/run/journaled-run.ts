// The journal's records as JSON: how a run began, its model turns, its calls and their outcomes, how it
// ended. Types only: a checkpoint carries them (`AgentCheckpoint.journal`) and every run store writes
// and reads them (`@needlework/durable` re-exports them with the store contract that uses them).
import type { ChatAssistantMessage, ChatUsage } from "../chat-client.js";
import type { JsonValue } from "../json-safe.js";
import type { FailedItem } from "../returned-failure.types.js";
import type { ArtifactReference, ToolOutcomeStatus } from "../tool-outcome.js";

/**
 * A reviewer's decision on one call as the journal keeps it: the decision and an HMAC-SHA256 (hex)
 * with a key derived from the agent's checkpoint secret over the run id, the call id, the tool, the
 * hash of the call's canonical arguments and the decision. Ids and the hash are not stored: they are
 * recomputed from the call being run, so a record proves nothing for another run, another call or
 * other arguments, and a database writer without the secret cannot make one. A store keeps it as
 * it is given.
 *
 * @example
 * ```ts
 * const run = await store.journal.read(runId);
 * const approved = run?.calls.filter((c) => c.approval?.decision === "approved");
 * ```
 */
export interface ApprovalRecord {
  readonly decision: "approved" | "denied";
  /** Hex HMAC-SHA256. */
  readonly signature: string;
}

/**
 * How a run began: enough to rebuild its first messages on another instance.
 *
 * @example
 * ```ts
 * const startedAt = new Date().toISOString();
 * const start = { runId: "run_1", agent: "crm-sync", instructions: "Sync contacts.", input: "Sync c1", startedAt };
 * await journal.runStarted(start);
 * ```
 */
export interface JournaledRunStart {
  readonly runId: string;
  readonly agent: string;
  /** The system prompt the run started with (a resumed run keeps it). */
  readonly instructions: string;
  /** The user's message. */
  readonly input: string;
  /** ISO 8601. */
  readonly startedAt: string;
}

/**
 * One model turn as the loop used it: the assistant message (tool call ids filled in) and its usage.
 *
 * @example
 * ```ts
 * await journal.turn("run_1", { index: 0, message: { role: "assistant", content: "Done." } });
 * ```
 */
export interface JournaledTurn {
  /** 0 for the run's first model turn. */
  readonly index: number;
  readonly message: ChatAssistantMessage;
  readonly usage?: ChatUsage;
  readonly finishReason?: string;
}

/**
 * A tool call as it started: recorded (durably) before the tool body runs.
 *
 * @example
 * ```ts
 * const call = { callId: "c1", tool: "crm_upsert", arguments: { id: "c1" }, idempotencyKey: "run_1:c1" };
 * await journal.callStarted("run_1", call);
 * ```
 */
export interface JournaledCallStart {
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them (an object or the raw JSON string). */
  readonly arguments: JsonValue;
  /** What the tool saw as `ctx.idempotencyKey`. */
  readonly idempotencyKey: string;
  /**
   * The signed decision record of an approved call (see `ApprovalRecord`): what lets a resumed run
   * run it again. A store keeps it as it is given; without it a gated call is asked about again.
   */
  readonly approval?: ApprovalRecord;
}

/**
 * A tool outcome as it settled: a JSON snapshot (never the exception) and the text the model read.
 *
 * @example
 * ```ts
 * const metadata = { tool: "crm_upsert", callId: "c1", attempts: 1, latencyMs: 3 };
 * const outcome = { status: "ok", retriable: false, data: { id: "c1" }, metadata } as const;
 * await journal.outcome("run_1", { callId: "c1", outcome, formatted: formatToolOutcome(outcome) });
 * ```
 */
export interface JournaledOutcome {
  readonly callId: string;
  /**
   * The key the call was given when its round was formed (a repeated call keeps its first call's):
   * recorded with the outcome, never derived from the call id again. needlework always writes it
   * (`journaledOutcome` requires it); optional here only so records written before it was kept
   * (which have it in `outcome.metadata.idempotencyKey`) still read.
   */
  readonly idempotencyKey?: string;
  readonly outcome: {
    readonly status: ToolOutcomeStatus;
    readonly retriable: boolean;
    readonly errorCode?: string;
    readonly message?: string;
    readonly suggestion?: string;
    /** The failed items of a batch (index, id, code), as listed before the data. */
    readonly failures?: readonly FailedItem[];
    readonly data?: JsonValue;
    /** Where the whole result is stored (`usingArtifacts()`): the reference, never the bytes. */
    readonly artifact?: ArtifactReference;
    readonly metadata: { readonly [key: string]: JsonValue };
  };
  /**
   * The outcome exactly as formatted for the model; empty for an outcome of an artifact (a stored
   * result's preview, or a page read from one): its data and reference are recorded, and the text is
   * made from them again.
   */
  readonly formatted: string;
}

/**
 * How a run ended: its status and the result `run()` returned, as JSON.
 *
 * @example
 * ```ts
 * const endedAt = new Date().toISOString();
 * await journal.runEnded("run_1", { status: "completed", endedAt, result: toJsonSafe(result) });
 * ```
 */
export interface JournaledRunEnd {
  readonly status: string;
  /** ISO 8601. */
  readonly endedAt: string;
  readonly result: JsonValue;
}

/**
 * A call of a journaled run: its start and, once it settled, its outcome.
 *
 * @example
 * ```ts
 * const inFlight = run.calls.filter((c) => c.outcome === undefined);
 * ```
 */
export interface JournaledCall extends JournaledCallStart {
  readonly outcome?: JournaledOutcome;
}

/**
 * A run read back from a journal.
 *
 * @example
 * ```ts
 * const run = await store.journal.read("run_1");
 * if (run && !run.end) await agent.resumeRun(run.runId);
 * ```
 */
export interface JournaledRun extends JournaledRunStart {
  /** In turn order. */
  readonly turns: readonly JournaledTurn[];
  /** In the order they started. */
  readonly calls: readonly JournaledCall[];
  readonly end?: JournaledRunEnd;
}
