import { type ChatResponse, type ToolOutcome, toJsonSafe } from "@needlework/core";
import type { ApprovalRecord } from "./approval-record.js";
import type { DecisionEvidence, DurableExecution, DurableToolCall } from "./durable-execution.js";
import { isArtifactPageRecord, journaledOutcome, rebuild } from "./journaled-outcome.js";
import { journaledTurn, recordedResponse } from "./journaled-turn.js";
import type { JournalWriter } from "./journal-writer.js";
import { outcomeUnknown } from "./outcome-unknown.js";
import type { RunRecord } from "./run-record.js";
import type { JournaledCall, JournaledRun } from "./run-journal.js";

/** What {@link journalExecution} journals a run into, and what it replays. */
export interface JournalExecutionOptions {
  /** The run's id. */
  readonly runId: string;
  /** The run's own record, in memory: what a pause's checkpoint serializes. */
  readonly record: RunRecord;
  /** The lease holder's writes to the store's journal; none for a run without a store. */
  readonly writer?: JournalWriter | undefined;
  /** The journal read back (a resumed run): recorded turns and outcomes are replayed, never asked or run again. */
  readonly history?: JournaledRun | undefined;
  /**
   * An approval resume's decision entry: the signed records of the paused round's decided calls,
   * already in the journal (their starts are not written again).
   */
  readonly decided?: ReadonlyMap<string, { readonly tool: string; readonly approval: ApprovalRecord }> | undefined;
  /** The text the model reads for an outcome (kept with the outcome in the store's journal). */
  readonly formatOutcome: (outcome: ToolOutcome) => string;
  /** The agent's clock (epoch ms). */
  readonly clock?: () => number;
}

/** Waits for `signal` to abort, then rejects with its reason (a call the loop itself cancelled). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * The built-in journal as a {@link DurableExecution}: each model turn is recorded as it returns,
 * each tool call before its body runs (unless read-only) and again when its outcome settles, in the
 * run's own record and, with a `writer`, the store's journal (in memory, a file, PostgreSQL). Given
 * the run's `history`, it replays it first: recorded turns come back instead of asking the model,
 * recorded outcomes instead of running tools. A call that started but never settled runs again
 * only when its tool is `idempotent` (same key); otherwise it gets `OUTCOME_UNKNOWN`.
 * For needlework's own packages and engine authors reading how the port is kept.
 *
 * @example
 * ```ts
 * const execution = journalExecution({ runId, record, formatOutcome: (o) => JSON.stringify(o) });
 * ```
 */
export function journalExecution(options: JournalExecutionOptions): DurableExecution {
  const { runId, record, writer, history, decided, formatOutcome, clock = Date.now } = options;
  const turns = history?.turns ?? [];
  const calls = new Map<string, JournaledCall>();
  for (const c of history?.calls ?? []) calls.set(c.callId, c);
  let asked = 0;
  const replaying = (): boolean => asked < turns.length;
  const settled = new Set<string>();

  /** An outcome settled: kept in the run's record (by reference) and written to the store. */
  const settle = (callId: string, outcome: ToolOutcome): ToolOutcome => {
    settled.add(callId);
    record.outcome(callId, outcome);
    writer?.outcome(journaledOutcome(outcome, formatOutcome(outcome), callId));
    return outcome;
  };

  const recordTurn = async <T>(index: number, fn: () => Promise<T>): Promise<T> => {
    asked = Math.max(asked, index + 1);
    const recorded = turns[index];
    if (recorded !== undefined) return recordedResponse(recorded) as T;
    const response = await fn();
    if (response === undefined) return response; // a cut-off stream: nothing is recorded
    record.turn(index, response as ChatResponse);
    if (writer !== undefined) await writer.turn(journaledTurn(index, response as ChatResponse));
    return response;
  };

  /** Writes a call's start before its body runs: a write whose start is lost could run twice. */
  const start = async (key: string, call: DurableToolCall): Promise<void> => {
    const { callId, tool, approval } = call;
    if (approval !== undefined) {
      record.callStarted(callId, { tool, arguments: call.arguments, idempotencyKey: key, approval });
      // The decision entry of a resume wrote this start already (fenced, before the loop ran).
      if (writer !== undefined && decided?.has(callId) !== true)
        await writer.callStarted({
          callId,
          tool,
          arguments: toJsonSafe(call.arguments ?? {}),
          idempotencyKey: key,
          approval,
        });
      return;
    }
    // A read-only tool has no start record (running it again is harmless), only its outcome; nor has
    // a tool the agent does not know (no body runs): the name the model made up is kept only in its
    // outcome, which a store's codec seals.
    if (writer !== undefined && call.known && !call.readOnly)
      await writer.callStarted({ callId, tool, arguments: toJsonSafe(call.arguments ?? {}), idempotencyKey: key });
  };

  const execution: DurableExecution = {
    runId,
    replaying,
    now: clock,
    random: Math.random,
    step(name, fn) {
      if (name.startsWith("turn:")) return recordTurn(Number(name.slice(5)), fn);
      // A round's start: the built-in journal writes each call's start (batched per tick into one
      // commit by the writer), so the step itself records nothing.
      return fn();
    },
    async call(key, fn, call) {
      const { callId } = call;
      const recorded = calls.get(callId);
      if (recorded?.outcome !== undefined) {
        // A page of an artifact is journaled as a reference: read it again (the call is read-only),
        // with the metadata the model read the first time.
        if (!isArtifactPageRecord(recorded.outcome)) return rebuild(recorded.outcome);
        const page = await fn();
        Object.assign(page.metadata, structuredClone(recorded.outcome.outcome.metadata));
        return page;
      }
      // Answered by the loop (denied, over a budget, refused): only the outcome is recorded, once.
      if (!call.runs) return settled.has(callId) ? fn() : settle(callId, await fn());
      if (recorded !== undefined) {
        // The original run went on past this round: the loop itself cancelled the call then.
        if (replaying()) return untilAborted(call.signal);
        if (!call.idempotent) return settle(callId, outcomeUnknown(call.tool, callId, key));
        // Runs again: its start is written again first, so the write is fenced by the lease before
        // the body runs (two processes that both took a free lease: the one not on it stops here).
        const { outcome: _none, approval: recordedApproval, ...begun } = recorded;
        const kept = call.approval ?? recordedApproval;
        record.callStarted(callId, { ...begun, ...(kept === undefined ? {} : { approval: kept }) });
        await writer?.callStarted(kept === undefined ? begun : { ...begun, approval: kept });
      } else if (writer !== undefined || call.approval !== undefined) await start(key, call);
      return settle(callId, await fn());
    },
    async waitForDecision(callId) {
      return evidenceOf(callId);
    },
  };
  /** What the journal holds of a decision on `callId`: a recorded outcome, or a signed record. */
  const evidenceOf = (callId: string): DecisionEvidence | undefined => {
    const recorded = calls.get(callId);
    if (recorded?.outcome !== undefined) return "settled";
    return decided?.get(callId)?.approval ?? recorded?.approval;
  };
  return execution;
}
