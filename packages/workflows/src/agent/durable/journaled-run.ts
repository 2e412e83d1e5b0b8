import { randomUUID } from "node:crypto";
import { abortReason, toJsonSafe } from "@needlework/core";
import type { AgentRunResult } from "../agent-run-result.js";
import type { ApprovedRound } from "../approvals/resume.js";
import { type AgentRuntime, AgentRun, type RunState } from "../loop/agent-loop.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { JournalWriter, runExists } from "./journal-writer.js";
import { journaledOutcome, journaledRuntime } from "./journaled-runtime.js";
import type { RunJournal } from "@needlework/durable";
import { RunStoreError, runBusy } from "@needlework/durable";
import { storedResult } from "./stored-result.js";

/**
 * Runs `body` as the run's lease holder: the lease is renewed while it runs and given up when it
 * ends, however it ends (an aborted run can be resumed at once, not after `leaseMs`). The end is
 * recorded, after every outcome, when the body returns a result.
 */
async function asHolder(
  runtime: AgentRuntime,
  writer: JournalWriter,
  body: () => Promise<AgentRunResult>,
): Promise<AgentRunResult> {
  writer.startRenewing();
  try {
    const result = await body();
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
 * Runs a new run under a journal: the start is recorded first (durably, with this process's lease),
 * then every turn and call, then the end. A run that rejects (aborted, or its process dies) has no
 * end and can be resumed.
 * @internal
 */
export async function runJournaled(
  runtime: AgentRuntime,
  journal: RunJournal,
  state: RunState,
  input: string,
  signal: AbortSignal | undefined,
  sink?: RunEventSink,
): Promise<AgentRunResult> {
  const { options } = runtime;
  const { runId } = state;
  const owner = randomUUID();
  const startedAt = new Date(options.clock()).toISOString();
  const start = { runId, agent: options.name, instructions: options.instructions, input, startedAt };
  // A journal that commits records together writes the start with the first turn (and the round's
  // call starts): RUN_EXISTS then comes with that commit, before any tool that is not readOnly runs.
  const writer = new JournalWriter(journal, runId, owner, start);
  if (!(await writer.begin(start))) throw runExists(runId);
  return asHolder(runtime, writer, () =>
    new AgentRun(journaledRuntime(runtime, writer, runId), state, signal, sink).loop(),
  );
}

/**
 * Continues a journaled run: a finished run returns its recorded result (checked); otherwise this
 * process takes the run's lease (`RUN_BUSY` when another live process holds it) and the loop replays
 * the journal (recorded turns and outcomes, never re-executed) and goes on live.
 * @internal
 */
export async function resumeJournaled(
  runtime: AgentRuntime,
  journal: RunJournal,
  runId: string,
  signal: AbortSignal | undefined,
  newState: (runId: string, instructions: string, input: string) => RunState,
  sink?: RunEventSink,
): Promise<AgentRunResult> {
  if (signal?.aborted) throw abortReason(signal);
  const { options } = runtime;
  if (journal.takeAndRead !== undefined) {
    // One statement: read, and taken when it is this agent's run and has not ended.
    const owner = randomUUID();
    const history = await journal.takeAndRead(runId, owner, options.name);
    if (history === undefined) throw notFound(runId);
    if (history.agent !== options.name) throw wrongAgent(runId, history.agent, options.name);
    if (history.end !== undefined) return storedResult(runId, history.end.result);
    const writer = new JournalWriter(journal, runId, owner);
    const state = newState(runId, history.instructions, history.input);
    const replay = journaledRuntime(runtime, writer, runId, history);
    return asHolder(runtime, writer, () => new AgentRun(replay, state, signal, sink).loop());
  }
  const found = await journal.read(runId);
  if (found === undefined) throw notFound(runId);
  if (found.agent !== options.name) throw wrongAgent(runId, found.agent, options.name);
  if (found.end !== undefined) return storedResult(runId, found.end.result);
  const owner = randomUUID();
  await take(journal, runId, owner);
  const writer = new JournalWriter(journal, runId, owner);
  // Read again as the holder: what the previous holder wrote up to losing the lease is all there is.
  const history = await journal.read(runId);
  if (history === undefined || history.end !== undefined) {
    await writer.stop();
    return history === undefined ? Promise.reject(notFound(runId)) : storedResult(runId, history.end!.result);
  }
  const state = newState(runId, history.instructions, history.input);
  const replay = journaledRuntime(runtime, writer, runId, history);
  return asHolder(runtime, writer, () => new AgentRun(replay, state, signal, sink).loop());
}

/**
 * Continues a run from an approval checkpoint under the journal of its run id, as its lease holder:
 * the denied calls' outcomes are recorded first (so a later replay answers them the same), then the
 * resumed round and the rest of the run, then its new end. A paused run the journal never saw (the
 * store came later) is started in it first.
 * @internal
 */
export async function continueJournaled(
  runtime: AgentRuntime,
  journal: RunJournal,
  approved: ApprovedRound,
  signal: AbortSignal | undefined,
  sink?: RunEventSink,
): Promise<AgentRunResult> {
  const { options } = runtime;
  const { state, calls, preset, gate } = approved;
  const { runId } = state;
  const owner = randomUUID();
  const history = await journal.read(runId);
  if (history === undefined) {
    const input = state.messages.find((m) => m.role === "user")?.content ?? "";
    const startedAt = new Date(options.clock()).toISOString();
    await journal.runStarted(
      { runId, agent: options.name, instructions: options.instructions, input, startedAt },
      owner,
    );
  } else if (history.agent !== options.name) {
    throw wrongAgent(runId, history.agent, options.name);
  } else {
    await take(journal, runId, owner);
  }
  const writer = new JournalWriter(journal, runId, owner);
  for (const [callId, outcome] of preset)
    writer.outcome(journaledOutcome(outcome, runtime.formatOutcome(outcome), callId));
  const live = journaledRuntime(runtime, writer, runId, history, "continue");
  return asHolder(runtime, writer, () => new AgentRun(live, state, signal, sink).resume(calls, preset, gate));
}

/** Takes the run's lease for `owner` (a new epoch), or throws `RUN_BUSY` with the time the holder has left. */
async function take(journal: RunJournal, runId: string, owner: string): Promise<void> {
  // A store that answers `false` says busy without saying until when.
  if (!(await journal.lease(runId, owner))) throw runBusy(runId);
}

function notFound(runId: string): RunStoreError {
  return new RunStoreError(
    "RUN_NOT_FOUND",
    `Run '${runId}' is not in this agent's store: resume it with an agent over the store that ran it.`,
  );
}

function wrongAgent(runId: string, owner: string, agent: string): RunStoreError {
  return new RunStoreError(
    "RUN_AGENT_MISMATCH",
    `Run '${runId}' belongs to agent '${owner}', not '${agent}': resume it with that agent.`,
  );
}
