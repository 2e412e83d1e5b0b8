import { randomUUID } from "node:crypto";
import { toJsonSafe } from "@needlework/core";
import type { AgentRunResult } from "../agent-run-result.js";
import type { ApprovedRound } from "../approvals/resume.js";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import { type AgentRuntime, AgentRun, type RunState } from "../loop/agent-loop.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { JournalWriter, runExists } from "./journal-writer.js";
import { journaledOutcome, journaledRuntime } from "./journaled-runtime.js";
import type { JournaledRun, JournaledRunStart, RunJournal } from "@needlework/durable";
import { RunStoreError, runBusy } from "@needlework/durable";
import { storedResult } from "./stored-result.js";

/**
 * A run as it reaches the loop, whichever public method started it: a new run's first state (`run`,
 * `stream`), a paused run's approved round (`resume`, `resumeStream`; see `approveRound`), or the
 * id of a journaled run to go on with (`resumeRun`, `resumeRunStream`). @internal
 */
export type LoopStart =
  | { readonly kind: "input"; readonly state: RunState; readonly input: string }
  | { readonly kind: "approval"; readonly approved: ApprovedRound }
  | {
      readonly kind: "journal";
      readonly runId: string;
      /** The first state of the run, from what its journal recorded at its start. */
      readonly newState: (runId: string, instructions: string, input: string) => RunState;
    };

/** The run in this process's hands: its writer (the lease holder), its state and what the journal held. */
interface Held {
  readonly writer: JournalWriter;
  readonly state: RunState;
  readonly history: JournaledRun | undefined;
}

/**
 * The one journaled run: every start with a `store` comes here. The run's lease is taken first
 * ({@link hold}: the one place it is taken); then the loop runs over the journaled runtime, which
 * answers from the journal what it holds (recorded turns and outcomes, never re-executed) and
 * records the rest, and the end is recorded, after every outcome, when the loop returns. A new run
 * starts with an empty journal; a crashed run replays its journal and goes on live; an approved
 * round continues its paused run's journal after the recorded turns (the denied calls' outcomes
 * recorded first, so a later replay answers them the same). A finished run (`resumeRun`) returns
 * its recorded result. A run that rejects (aborted, or its process dies) has no end and can be
 * resumed.
 * @internal
 */
export async function runJournaled(
  runtime: AgentRuntime,
  journal: RunJournal,
  start: LoopStart,
  signal: AbortSignal | undefined,
  sink?: RunEventSink,
): Promise<AgentRunResult> {
  const held = await hold(runtime, journal, start, randomUUID());
  if (!("writer" in held)) return held.result;
  const { writer, state, history } = held;
  if (start.kind === "approval")
    for (const [callId, outcome] of start.approved.preset)
      writer.outcome(journaledOutcome(outcome, runtime.formatOutcome(outcome), callId));
  const live = journaledRuntime(
    runtime,
    writer,
    state.runId,
    history,
    start.kind === "approval" ? "continue" : "replay",
  );
  // The lease is renewed while the loop runs and given up when it ends, however it ends (an aborted
  // run can be resumed at once, not after `leaseMs`).
  writer.startRenewing();
  try {
    const run = new AgentRun(live, state, signal, sink);
    const result =
      start.kind === "approval"
        ? await run.resume(start.approved.calls, start.approved.preset, start.approved.gate)
        : await run.loop();
    await writer.end({
      status: result.status,
      endedAt: new Date(runtime.options.clock()).toISOString(),
      result: toJsonSafe(result),
    });
    return result;
  } finally {
    await writer.stop();
  }
}

/**
 * Takes the run's lease for `owner`, the one way every start does: a new run by recording its start
 * (`RUN_EXISTS` when its id is taken; a journal that commits records together writes it with the
 * first turn, before any tool that is not readOnly runs); a recorded run by a new epoch of its lease
 * (`RUN_BUSY` while another live process holds it), read again as the holder: what the previous
 * holder wrote up to losing the lease is all there is. A paused run the journal never saw (the store
 * came later) is started in it. Resolves the recorded result of a finished run (`resumeRun`).
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
    return { writer, state, history: undefined };
  }
  if (start.kind === "approval") {
    const { state } = start.approved;
    const history = await journal.read(state.runId);
    if (history === undefined) {
      const input = state.messages.find((m) => m.role === "user")?.content ?? "";
      await journal.runStarted(startRecord(options, state.runId, input), owner);
    } else {
      checkAgent(history, options.name);
      await take(journal, state.runId, owner);
    }
    return { writer: new JournalWriter(journal, state.runId, owner), state, history };
  }
  const { runId } = start;
  // A store that can, in one statement: read, and taken when it is this agent's run and has not ended.
  const found = journal.takeAndRead ? await journal.takeAndRead(runId, owner, options.name) : await journal.read(runId);
  if (found === undefined) throw notFound(runId);
  checkAgent(found, options.name);
  if (found.end !== undefined) return { result: storedResult(runId, found.end.result) };
  let history: JournaledRun | undefined = found;
  if (journal.takeAndRead === undefined) {
    await take(journal, runId, owner);
    history = await journal.read(runId);
  }
  const writer = new JournalWriter(journal, runId, owner);
  if (history === undefined || history.end !== undefined) {
    await writer.stop();
    if (history === undefined) throw notFound(runId);
    return { result: storedResult(runId, history.end!.result) };
  }
  return { writer, state: start.newState(runId, history.instructions, history.input), history };
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
