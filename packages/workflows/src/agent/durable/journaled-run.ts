import { abortReason, type JsonValue, toJsonSafe } from "@needlework/core";
import type { AgentRunResult } from "../agent-run-result.js";
import { type AgentRuntime, AgentRun, type RunState } from "../loop/agent-loop.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import type { ApprovedRound } from "../approvals/resume.js";
import { journaledOutcome, journaledRuntime } from "./journaled-runtime.js";
import type { RunJournal } from "./run-journal.js";
import { RunStoreError } from "./run-store-error.js";

async function recordEnd(
  journal: RunJournal,
  runId: string,
  clock: () => number,
  result: AgentRunResult,
): Promise<AgentRunResult> {
  await journal.runEnded(runId, {
    status: result.status,
    endedAt: new Date(clock()).toISOString(),
    result: toJsonSafe(result),
  });
  return result;
}

/**
 * Runs a new run under a journal: the start is recorded first (durably), then every turn and call,
 * then the end. A run that rejects (aborted, or its process dies) has no end and can be resumed.
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
  const startedAt = new Date(options.clock()).toISOString();
  if (
    !(await journal.runStarted({ runId, agent: options.name, instructions: options.instructions, input, startedAt }))
  ) {
    throw new RunStoreError(
      "RUN_EXISTS",
      `Run '${runId}' is already in the journal: continue it with agent.resumeRun('${runId}'), ` +
        "or start a new run with another runId.",
    );
  }
  const result = await new AgentRun(journaledRuntime(runtime, journal, runId), state, signal, sink).loop();
  return recordEnd(journal, runId, options.clock, result);
}

/**
 * Continues a journaled run: a finished run returns its recorded result; otherwise the loop
 * replays the journal (recorded turns and outcomes, never re-executed) and goes on live.
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
  if (typeof runId !== "string" || runId === "")
    throw new TypeError("agent.resumeRun: pass the runId of a journaled run.");
  if (signal?.aborted) throw abortReason(signal);
  const { options } = runtime;
  const history = await journal.read(runId);
  if (history === undefined)
    throw new RunStoreError(
      "RUN_NOT_FOUND",
      `Run '${runId}' is not in this agent's store: resume it with an agent over the store that ran it.`,
    );
  if (history.agent !== options.name) {
    throw new RunStoreError(
      "RUN_AGENT_MISMATCH",
      `Run '${runId}' belongs to agent '${history.agent}', not '${options.name}': resume it with that agent.`,
    );
  }
  if (history.end !== undefined) return history.end.result as JsonValue as unknown as AgentRunResult;
  const state = newState(runId, history.instructions, history.input);
  const result = await new AgentRun(journaledRuntime(runtime, journal, runId, history), state, signal, sink).loop();
  return recordEnd(journal, runId, options.clock, result);
}

/**
 * Continues a run from an approval checkpoint under the journal of its run id: the denied calls'
 * outcomes are recorded first (so a later replay answers them the same), then the resumed round and
 * the rest of the run, then its new end. A paused run the journal never saw (the store came later) is
 * started in it first.
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
  const { state, calls, preset } = approved;
  const { runId } = state;
  const history = await journal.read(runId);
  if (history === undefined) {
    const input = state.messages.find((m) => m.role === "user")?.content ?? "";
    const startedAt = new Date(options.clock()).toISOString();
    await journal.runStarted({ runId, agent: options.name, instructions: options.instructions, input, startedAt });
  } else if (history.agent !== options.name) {
    throw new RunStoreError(
      "RUN_AGENT_MISMATCH",
      `Run '${runId}' belongs to agent '${history.agent}', not '${options.name}': resume it with that agent.`,
    );
  }
  const live = journaledRuntime(runtime, journal, runId, history, "continue");
  for (const [callId, outcome] of preset)
    await journal.outcome(runId, journaledOutcome(outcome, runtime.formatOutcome(outcome), callId));
  const result = await new AgentRun(live, state, signal, sink).resume(calls, preset);
  return recordEnd(journal, runId, options.clock, result);
}
