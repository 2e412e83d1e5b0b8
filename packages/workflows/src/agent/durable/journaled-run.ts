import { randomUUID } from "node:crypto";
import { toJsonSafe } from "@needlework/core";
import type { AgentRunResult } from "../agent-run-result.js";
import type { ApprovedPause } from "../approvals/resume.js";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import { CheckpointError } from "../approvals/checkpoint-error.js";
import type { AgentCheckpoint } from "../approvals/checkpoint.js";
import { type AgentRuntime, AgentRun, type RunState } from "../loop/agent-loop.js";
import { newRunState } from "../run-start.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { journaledRuntime } from "./journaled-runtime.js";
import type { JournaledRun, JournaledRunStart, RunJournal } from "@needlework/durable";
import { RunStoreError, runBusy } from "@needlework/durable";
import { JournalWriter, RunRecord, runExists, verifyDecision } from "@needlework/durable/internal";
import { storedResult } from "./stored-result.js";

/**
 * A run as it reaches the loop, whichever public method started it: a new run's first state (`run`,
 * `stream`), a paused run's verified pause and decisions (`resume`, `resumeStream`; see
 * `approvePause`), or the id of a journaled run to go on with (`resumeRun`, `resumeRunStream`). @internal
 */
export type LoopStart =
  | { readonly kind: "input"; readonly state: RunState; readonly input: string }
  | { readonly kind: "approval"; readonly approved: ApprovedPause }
  | { readonly kind: "journal"; readonly runId: string };

/** The run in this process's hands: its writer (the lease holder, with a store), its first state and its history. */
interface Held {
  readonly writer: JournalWriter | undefined;
  readonly record: RunRecord;
  readonly state: RunState;
  readonly history: JournaledRun | undefined;
}

/**
 * The one journaled run: every start comes here, with a `store` or without. Every run writes to a
 * journal: the run's own record in memory ({@link RunRecord}, dropped with the run) and, with a
 * `store`, the store's journal, whose lease is taken first ({@link hold}: the one place it is
 * taken). The loop runs from the run's first state over the journaled runtime, which answers from
 * the journal what it holds (recorded turns and outcomes, never asked or run again) and records the
 * rest; the end is recorded, after every outcome, when the loop returns. A new run starts with an
 * empty journal; a crashed run and a resumed pause replay theirs and go on live (one mechanism:
 * the paused round's gated calls find the decision entry's signed records). A finished run
 * (`resumeRun`) returns its recorded result. A run that rejects (aborted, or its process dies) has
 * no end and can be resumed.
 * @internal
 */
export async function runJournaled(
  runtime: AgentRuntime,
  journal: RunJournal | undefined,
  start: LoopStart,
  signal: AbortSignal | undefined,
  sink?: RunEventSink,
): Promise<AgentRunResult> {
  if (journal === undefined) {
    const { record, state, history } = inMemory(runtime, start);
    const decided = start.kind === "approval" ? start.approved.decided : undefined;
    const live = journaledRuntime(runtime, record, undefined, state.runId, history, decided);
    return new AgentRun(live, state, signal, sink).loop();
  }
  const held = await hold(runtime, journal, start, randomUUID());
  if (!("state" in held)) return held.result;
  const { writer, record, state, history } = held;
  const decided = start.kind === "approval" ? start.approved.decided : undefined;
  const live = journaledRuntime(runtime, record, writer, state.runId, history, decided);
  // The lease is renewed while the loop runs and given up when it ends, however it ends (an aborted
  // run can be resumed at once, not after `leaseMs`).
  writer!.startRenewing();
  try {
    const result = await new AgentRun(live, state, signal, sink).loop();
    await writer!.end({
      status: result.status,
      endedAt: new Date(runtime.options.clock()).toISOString(),
      result: toJsonSafe(result),
    });
    return result;
  } finally {
    await writer!.stop();
  }
}

/** A run without a `store`: its journal is its own record, in memory (a resumed pause's from its checkpoint). */
function inMemory(runtime: AgentRuntime, start: LoopStart): Held {
  if (start.kind === "input") {
    const { state, input } = start;
    const { name: agent, instructions } = runtime.options;
    const record = new RunRecord({
      runId: state.runId,
      agent,
      instructions,
      input,
      startedAt: runtime.options.clock(),
    });
    return { writer: undefined, record, state, history: undefined };
  }
  // Without a store there is no journal to resume a run id from (`checked` refused such a start).
  if (start.kind === "journal") throw new TypeError("agent.resumeRun: the agent has no `store`.");
  const history: JournaledRun = start.approved.checkpoint.journal;
  return {
    writer: undefined,
    record: decisionEntry(new RunRecord(history, history), start.approved),
    state: firstState(history),
    history,
  };
}

/** The decision entry in the run's own record: each decided call's start with its signed record. */
function decisionEntry(record: RunRecord, approved: ApprovedPause): RunRecord {
  for (const [callId, d] of approved.decided) record.callStarted(callId, d);
  return record;
}

function firstState(run: JournaledRunStart): RunState {
  return newRunState(run.runId, run.instructions, run.input);
}

/** `CHECKPOINT_ALREADY_RESUMED`: the journal says the pause was decided (or is being resumed now). @internal */
export function alreadyResumed(checkpoint: Pick<AgentCheckpoint, "id" | "runId">): CheckpointError {
  return new CheckpointError(
    "CHECKPOINT_ALREADY_RESUMED",
    `Checkpoint ${checkpoint.id} (run ${checkpoint.runId}) was already resumed; its calls ran then and will not run again.`,
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

/** Whether the journal's run is still paused at `checkpoint`: its last end is that pause, not decided. */
function pauseOpen(run: JournaledRun, checkpoint: AgentCheckpoint, key: Uint8Array): boolean {
  const pause = lastPause(run);
  if (pause === undefined) return false;
  if (typeof pause.id === "string" && pause.id !== checkpoint.id) return false;
  return !decided(run, new Set(checkpoint.pending.map((p) => p.callId)), key);
}

/**
 * A paused run resumed over a store, once: its lease taken (a new epoch; a live holder means another
 * process is resuming it), its journal read as the holder (the store's journal is authoritative; a
 * run the store never saw is started in it from the checkpoint's), the pause checked still open,
 * and the decision entry written, fenced by this take's epoch, before any call runs: of two
 * processes resuming one checkpoint, the second is refused `CHECKPOINT_ALREADY_RESUMED`.
 */
async function holdPause(
  runtime: AgentRuntime,
  journal: RunJournal,
  approved: ApprovedPause,
  owner: string,
): Promise<Held> {
  const { checkpoint, decided } = approved;
  const { runId } = checkpoint;
  let history = await journal.read(runId);
  let writer: JournalWriter;
  if (history === undefined) {
    const { turns, calls, ...start } = checkpoint.journal;
    if (!(await journal.runStarted(start, owner))) throw alreadyResumed(checkpoint);
    writer = new JournalWriter(journal, runId, owner);
    for (const turn of turns) await writer.turn(turn);
    for (const { outcome, ...call } of calls) {
      if (call.arguments !== null) void writer.callStarted(call);
      if (outcome !== undefined) writer.outcome(outcome);
    }
    history = checkpoint.journal;
  } else {
    checkAgent(history, runtime.options.name);
    try {
      await take(journal, runId, owner);
    } catch (error) {
      if (RunStoreError.isInstance(error) && error.code === "RUN_BUSY") throw alreadyResumed(checkpoint);
      throw error;
    }
    writer = new JournalWriter(journal, runId, owner);
    history = await journal.read(runId);
    if (history === undefined || !pauseOpen(history, checkpoint, runtime.key)) {
      await writer.stop();
      throw alreadyResumed(checkpoint);
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
    if (RunStoreError.isInstance(error) && error.code === "RUN_BUSY") throw alreadyResumed(checkpoint);
    throw error;
  }
  const record = decisionEntry(new RunRecord(history, history), approved);
  return { writer, record, state: firstState(history), history };
}

/**
 * Takes the run's lease for `owner`, the one way every start does: a new run by recording its start
 * (`RUN_EXISTS` when its id is taken; a journal that commits records together writes it with the
 * first turn, before any tool that is not readOnly runs); a paused run by {@link holdPause}; a
 * recorded run by a new epoch of its lease (`RUN_BUSY` while another live process holds it), read
 * again as the holder: what the previous holder wrote up to losing the lease is all there is.
 * Resolves the recorded result of a finished run (`resumeRun`).
 */
async function hold(
  runtime: AgentRuntime,
  journal: RunJournal,
  start: LoopStart,
  owner: string,
): Promise<Held | { readonly result: AgentRunResult }> {
  const { options } = runtime;
  if (start.kind === "input") {
    const { state, input } = start;
    const record = startRecord(options, state.runId, input);
    const writer = new JournalWriter(journal, state.runId, owner, record);
    if (!(await writer.begin(record))) throw runExists(state.runId);
    return { writer, record: new RunRecord(record), state, history: undefined };
  }
  if (start.kind === "approval") return holdPause(runtime, journal, start.approved, owner);
  const { runId } = start;
  // A store that can, in one statement: read, and taken when it is this agent's run and has not ended.
  const found = journal.takeAndRead ? await journal.takeAndRead(runId, owner, options.name) : await journal.read(runId);
  if (found === undefined) throw notFound(runId);
  checkAgent(found, options.name);
  const live = (run: JournaledRun): boolean => run.end === undefined || decidedPause(run, runtime.key);
  if (!live(found)) return { result: storedResult(runId, found.end!.result) };
  let history: JournaledRun | undefined = found;
  // An ended run is not taken by takeAndRead: a pause whose resume died after its decision entry is.
  if (journal.takeAndRead === undefined || found.end !== undefined) {
    await take(journal, runId, owner);
    history = await journal.read(runId);
  }
  const writer = new JournalWriter(journal, runId, owner);
  if (history === undefined || !live(history)) {
    await writer.stop();
    if (history === undefined) throw notFound(runId);
    return { result: storedResult(runId, history.end!.result) };
  }
  return { writer, record: new RunRecord(history, history), state: firstState(history), history };
}

function startRecord(options: ResolvedAgentOptions, runId: string, input: string): JournaledRunStart {
  const startedAt = new Date(options.clock()).toISOString();
  return { runId, agent: options.name, instructions: options.instructions, input, startedAt };
}

/** Takes the run's lease for `owner` (a new epoch), or throws `RUN_BUSY` with the time the holder has left. */
async function take(journal: RunJournal, runId: string, owner: string): Promise<void> {
  // A store that answers `false` says busy without saying until when.
  if (!(await journal.lease(runId, owner))) throw runBusy(runId);
}

function checkAgent(run: JournaledRun, agent: string): void {
  if (run.agent !== agent)
    throw new RunStoreError(
      "RUN_AGENT_MISMATCH",
      `Run '${run.runId}' belongs to agent '${run.agent}', not '${agent}': resume it with that agent.`,
    );
}

function notFound(runId: string): RunStoreError {
  return new RunStoreError(
    "RUN_NOT_FOUND",
    `Run '${runId}' is not in this agent's store: resume it with an agent over the store that ran it.`,
  );
}
