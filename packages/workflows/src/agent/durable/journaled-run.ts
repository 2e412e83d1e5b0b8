import { randomUUID } from "node:crypto";
import { toJsonSafe } from "@needlework/core";
import type { AgentRunResult } from "@needlework/core/events";
import type { ApprovedPause } from "../approvals/resume.js";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import { CheckpointError } from "../approvals/checkpoint-error.js";
import type { AgentCheckpoint } from "../approvals/checkpoint.js";
import { type AgentRuntime, AgentRun, type RunState } from "../loop/agent-loop.js";
import { newRunState } from "../run-start.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { journaledRuntime } from "./journaled-runtime.js";
import {
  type DurableExecution,
  type DurableExecutionFactory,
  type JournaledRun,
  type JournaledRunStart,
  type RunJournal,
} from "@needlework/durable";
import {
  holdPausedRun,
  holdRecordedRun,
  JournalWriter,
  journalExecution,
  RunRecord,
  runExists,
} from "@needlework/durable/internal";
import { recordingExecution } from "./recording-execution.js";
import { AgentMemoryJournal, pauseEnd } from "./agent-memory-journal.js";
import { cancelReason } from "../loop/run-cancel.js";
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
 * journal: the run's own record in memory ({@link RunRecord}, dropped with the run, what a pause's
 * checkpoint carries) and the agent's journal (the `store`'s, or the agent's own in memory: see
 * `AgentMemoryJournal`), whose lease is taken first ({@link hold}: the one place it is taken). The
 * loop runs from the run's first state over the journaled runtime, which answers from the journal
 * what it holds (recorded turns and outcomes, never asked or run again) and records the rest; the
 * end is recorded, after every outcome, when the loop returns. A new run starts with an empty
 * journal; a crashed run and a resumed pause replay theirs and go on live (one mechanism: the paused
 * round's gated calls find the decision entry's signed records), and a pause is resumed once
 * because its decision is a journal entry. A finished run (`resumeRun`) returns its recorded result.
 * A run that rejects (aborted, or its process dies) has no end and can be resumed.
 * @internal
 */
export async function runJournaled(
  runtime: AgentRuntime,
  journal: RunJournal,
  start: LoopStart,
  signal: AbortSignal | undefined,
  sink?: RunEventSink,
  engine?: DurableExecutionFactory,
): Promise<AgentRunResult> {
  const streamed = sink !== undefined;
  if (engine !== undefined) return runOnEngine(runtime, engine, start, signal, sink);
  const held = await hold(runtime, journal, start, randomUUID());
  if (!("state" in held)) return held.result;
  const { writer, record, state } = held;
  // The agent's own journal in memory (no `store`) keeps only what resume-once needs: the loop
  // writes no turn, call or outcome to it (the run's own record has them, and a pause's checkpoint).
  const lite = journal instanceof AgentMemoryJournal;
  const live = journaledRuntime(runtime, builtIn(runtime, held, start, lite), record, streamed);
  // The lease is renewed while the loop runs and given up when it ends, however it ends (an aborted
  // run can be resumed at once, not after `leaseMs`). An operator's cancel request is read at each
  // renewal: the run's signal aborts with it, and the run ends `cancelled` (see run-cancel.ts).
  // A journal nobody can ask to cancel (the agent's own in memory) adds no signal to the run.
  let runSignal = signal;
  if (journal.cancelRequested !== undefined) {
    const cancel = new AbortController();
    writer!.watchCancel((request) => cancel.abort(cancelReason(request)));
    runSignal = signal === undefined ? cancel.signal : AbortSignal.any([signal, cancel.signal]);
  }
  writer!.startRenewing();
  try {
    const result = await new AgentRun(live, state, runSignal, sink).loop();
    await writer!.end({
      status: result.status,
      endedAt: new Date(runtime.options.clock()).toISOString(),
      result: lite ? pauseEnd(result) : toJsonSafe(result),
    });
    return result;
  } finally {
    await writer!.stop();
  }
}

/** The built-in journal as the run's execution: its record, its store's writer (`lite`: none), its history. */
function builtIn(runtime: AgentRuntime, held: Held, start: LoopStart, lite: boolean): DurableExecution {
  return journalExecution({
    runId: held.state.runId,
    record: held.record,
    writer: lite ? undefined : held.writer,
    history: held.history,
    decided: start.kind === "approval" ? start.approved.decided : undefined,
    formatOutcome: runtime.formatOutcome,
    clock: runtime.options.clock,
  });
}

/**
 * A run inside a durable execution engine (`createAgent({ execution })`): the engine owns replay,
 * ownership and recovery, so no lease is taken and no store journal is written; the run's own record
 * is kept in memory beside it (what a pause's checkpoint carries).
 */
async function runOnEngine(
  runtime: AgentRuntime,
  engine: DurableExecutionFactory,
  start: LoopStart,
  signal: AbortSignal | undefined,
  sink: RunEventSink | undefined,
): Promise<AgentRunResult> {
  if (start.kind === "journal")
    throw new TypeError(
      "agent.resumeRun: a run of an agent with `execution` is resumed by its engine (it re-runs the workflow).",
    );
  const held = inMemory(runtime, start);
  const execution = await engine({ runId: held.state.runId, agent: runtime.options.name });
  const recorded = recordingExecution(execution, held.record);
  const live = journaledRuntime(runtime, recorded, held.record, sink !== undefined);
  return new AgentRun(live, held.state, signal, sink).loop();
}

/** A run inside an engine: its journal is its own record, in memory (a resumed pause's from its checkpoint). */
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
  // An engine resumes a run by re-running its workflow (`runOnEngine` refused such a start).
  if (start.kind === "journal") throw new TypeError("agent.resumeRun: the engine resumes its runs.");
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
  const held = await holdPausedRun(journal, checkpoint, decided, owner, runtime.options.name, runtime.key);
  if (held === undefined) throw alreadyResumed(checkpoint);
  const { writer } = held;
  // The agent's journal in memory keeps no turns: the run replays its checkpoint's journal (verified).
  const history: JournaledRun = journal instanceof AgentMemoryJournal ? checkpoint.journal : held.history;
  const record = decisionEntry(new RunRecord(history, history), approved);
  return { writer, record, state: firstState(history), history };
}

/**
 * Records in `journal` that a pause was decided, and nothing more (what a run inside an engine needs
 * from the agent's journal: the engine runs it, the journal makes it resume once); throws
 * `CHECKPOINT_ALREADY_RESUMED` when it was. @internal
 */
export async function decidePause(runtime: AgentRuntime, journal: RunJournal, approved: ApprovedPause): Promise<void> {
  const { writer } = await holdPause(runtime, journal, approved, randomUUID());
  await writer?.stop();
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
  const held = await holdRecordedRun(journal, start.runId, owner, options.name, runtime.key);
  if ("ended" in held) return { result: storedResult(start.runId, held.ended) };
  const { writer, history } = held;
  return { writer, record: new RunRecord(history, history), state: firstState(history), history };
}

function startRecord(options: ResolvedAgentOptions, runId: string, input: string): JournaledRunStart {
  const startedAt = new Date(options.clock()).toISOString();
  return { runId, agent: options.name, instructions: options.instructions, input, startedAt };
}
