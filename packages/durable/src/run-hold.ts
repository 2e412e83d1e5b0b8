import { type JsonValue, toJsonSafe } from "@needlework/core";
import { verifyDecision } from "./decision-record.js";
import { JournalWriter } from "./journal-writer.js";
import type { ApprovalRecord } from "./approval-record.js";
import type { JournaledRun, RunJournal } from "./run-journal.js";
import { RunStoreError, runBusy } from "./run-store-error.js";

/**
 * Takes the run's lease for `owner` (a new epoch), or throws `RUN_BUSY` with the time the holder has left.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export async function takeLease(journal: RunJournal, runId: string, owner: string): Promise<void> {
  // A store that answers `false` says busy without saying until when.
  if (!(await journal.lease(runId, owner))) throw runBusy(runId);
}

/**
 * Throws `RUN_AGENT_MISMATCH` when `run` belongs to another agent than `agent`.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function checkRunAgent(run: JournaledRun, agent: string): void {
  if (run.agent !== agent)
    throw new RunStoreError(
      "RUN_AGENT_MISMATCH",
      `Run '${run.runId}' belongs to agent '${run.agent}', not '${agent}': resume it with that agent.`,
    );
}

/**
 * `RUN_NOT_FOUND`: the run is not in the agent's store.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function runNotFound(runId: string): RunStoreError {
  return new RunStoreError(
    "RUN_NOT_FOUND",
    `Run '${runId}' is not in this agent's store: resume it with an agent over the store that ran it.`,
  );
}

/**
 * Whether a call of the pause `pending` names was decided in `run`'s journal: it has an outcome, or a
 * decision record signed with the agent's key (the decision entry of a resume writes one for each
 * decided call, before anything runs). A call start without a valid record (a crashed call, or a
 * forged row) decides nothing.
 */
function decided(run: JournaledRun, pending: ReadonlySet<unknown>, key: Uint8Array): boolean {
  return run.calls.some(
    (c) =>
      pending.has(c.callId) &&
      (c.outcome !== undefined ||
        verifyDecision(key, c.approval, {
          runId: run.runId,
          callId: c.callId,
          tool: c.tool,
          arguments: c.arguments,
        }) !== undefined),
  );
}

/** The pause a run's last end records: its checkpoint's id and pending call ids, when it ended paused. */
function lastPause(run: JournaledRun): { id: unknown; pending: ReadonlySet<unknown> } | undefined {
  if (run.end?.status !== "awaiting_approval") return undefined;
  const result = run.end.result as { checkpoint?: { id?: unknown; pending?: unknown } } | null;
  const checkpoint = typeof result === "object" && result !== null ? result.checkpoint : undefined;
  const pending = Array.isArray(checkpoint?.pending) ? (checkpoint.pending as { callId?: unknown }[]) : [];
  return { id: checkpoint?.id, pending: new Set(pending.map((p) => p?.callId)) };
}

/**
 * A run that ended paused and whose pause was decided: a resume recorded its decisions and died
 * before the run ended again. `resumeRun` goes on with it (the decided calls find their records).
 */
function decidedPause(run: JournaledRun, key: Uint8Array): boolean {
  const pause = lastPause(run);
  return pause !== undefined && pause.pending.size > 0 && decided(run, pause.pending, key);
}

/**
 * Whether the journal's run is still paused at `pause` (a checkpoint: its id and pending calls): its
 * last end is that pause, not decided (`key`: the agent's checkpoint key, which signs decision records).
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function pauseOpen(
  run: JournaledRun,
  pause: { readonly id: string; readonly pending: readonly { readonly callId: string }[] },
  key: Uint8Array,
): boolean {
  const last = lastPause(run);
  if (last === undefined) return false;
  if (typeof last.id === "string" && last.id !== pause.id) return false;
  return !decided(run, new Set(pause.pending.map((p) => p.callId)), key);
}

/**
 * Records in `journal` a paused run it never saw, from its checkpoint's journal `run`, leased to
 * `owner`: its start, turns, call starts and outcomes. Resolves the run's writer, or `undefined`
 * (nothing written) when a run with this id exists.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export async function startFromCheckpoint(
  journal: RunJournal,
  run: Omit<JournaledRun, "end">,
  owner: string,
): Promise<JournalWriter | undefined> {
  const { turns, calls, ...start } = run;
  if (!(await journal.runStarted(start, owner))) return undefined;
  const writer = new JournalWriter(journal, run.runId, owner);
  for (const turn of turns) await writer.turn(turn);
  for (const { outcome, ...call } of calls) {
    if (call.arguments !== null) void writer.callStarted(call);
    // The key as the call's record has it (an outcome of a format-2 checkpoint does not carry it).
    if (outcome !== undefined)
      writer.outcome({ ...outcome, idempotencyKey: outcome.idempotencyKey ?? call.idempotencyKey });
  }
  return writer;
}

/**
 * Takes a recorded run for `owner` to go on with it (`resumeRun`): by a new epoch of its lease
 * (`RUN_BUSY` while another live process holds it), read again as the holder: what the previous
 * holder wrote up to losing the lease is all there is. Resolves its writer and history, or the
 * recorded result of a run that finished (`ended`). `RUN_NOT_FOUND` when the journal never saw it,
 * `RUN_AGENT_MISMATCH` when it is another agent's. A run that ended paused and whose pause was
 * decided (a resume that died after recording its decisions) is live: it is taken.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export async function holdRecordedRun(
  journal: RunJournal,
  runId: string,
  owner: string,
  agent: string,
  key: Uint8Array,
): Promise<{ readonly writer: JournalWriter; readonly history: JournaledRun } | { readonly ended: JsonValue }> {
  // A store that can, in one statement: read, and taken when it is this agent's run and has not ended.
  const found = journal.takeAndRead ? await journal.takeAndRead(runId, owner, agent) : await journal.read(runId);
  if (found === undefined) throw runNotFound(runId);
  checkRunAgent(found, agent);
  const live = (run: JournaledRun): boolean => run.end === undefined || decidedPause(run, key);
  if (!live(found)) return { ended: found.end!.result };
  let history: JournaledRun | undefined = found;
  // An ended run is not taken by takeAndRead: a pause whose resume died after its decision entry is.
  if (journal.takeAndRead === undefined || found.end !== undefined) {
    try {
      await takeLease(journal, runId, owner);
    } catch (error) {
      // It ended for good between the read and the take: its recorded result is the answer.
      if (!RunStoreError.isInstance(error) || error.code !== "RUN_ENDED") throw error;
      const ended = await journal.read(runId);
      if (ended?.end === undefined) throw error;
      return { ended: ended.end.result };
    }
    history = await journal.read(runId);
  }
  const writer = new JournalWriter(journal, runId, owner);
  if (history === undefined || !live(history)) {
    await writer.stop();
    if (history === undefined) throw runNotFound(runId);
    return { ended: history.end!.result };
  }
  return { writer, history };
}

/**
 * A decided call of a paused round, as the decision entry records it: its start with the signed record.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export interface DecisionEntry {
  readonly tool: string;
  readonly arguments: unknown;
  readonly idempotencyKey: string;
  readonly approval: ApprovalRecord;
}

/**
 * Takes a paused run over a store, once: its lease taken (a new epoch; a live holder means another
 * process is resuming it), its journal read as the holder (the store's journal is authoritative; a
 * run the store never saw is started in it from the checkpoint's), the pause checked still open,
 * and the decision entry (`decided`, by call id) written, fenced by this take's epoch, before any
 * call runs. Resolves the run's writer and history, or `undefined` when the pause was resumed
 * already or is being resumed now: of two processes resuming one checkpoint, the second gets `undefined`.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export async function holdPausedRun(
  journal: RunJournal,
  checkpoint: {
    readonly id: string;
    readonly runId: string;
    readonly pending: readonly { readonly callId: string }[];
    readonly journal: Omit<JournaledRun, "end">;
  },
  decided: ReadonlyMap<string, DecisionEntry>,
  owner: string,
  agent: string,
  key: Uint8Array,
): Promise<{ readonly writer: JournalWriter; readonly history: JournaledRun } | undefined> {
  const { runId } = checkpoint;
  let history = await journal.read(runId);
  let writer: JournalWriter;
  if (history === undefined) {
    const started = await startFromCheckpoint(journal, checkpoint.journal, owner);
    if (started === undefined) return undefined;
    writer = started;
    history = checkpoint.journal;
  } else {
    checkRunAgent(history, agent);
    try {
      await takeLease(journal, runId, owner);
    } catch (error) {
      // Busy (another resume holds it), or ended for good since (another resume finished it).
      if (RunStoreError.isInstance(error) && (error.code === "RUN_BUSY" || error.code === "RUN_ENDED"))
        return undefined;
      throw error;
    }
    writer = new JournalWriter(journal, runId, owner);
    history = await journal.read(runId);
    if (history === undefined || !pauseOpen(history, checkpoint, key)) {
      await writer.stop();
      return undefined;
    }
  }
  try {
    await Promise.all(
      [...decided].map(([callId, d]) =>
        writer.callStarted({
          callId,
          tool: d.tool,
          arguments: toJsonSafe(d.arguments ?? {}),
          idempotencyKey: d.idempotencyKey,
          approval: d.approval,
        }),
      ),
    );
  } catch (error) {
    await writer.stop().catch(() => undefined);
    // Another process took the run after this one read it: it resumes the pause, this one runs nothing.
    if (RunStoreError.isInstance(error) && error.code === "RUN_BUSY") return undefined;
    throw error;
  }
  return { writer, history };
}
