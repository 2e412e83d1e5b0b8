import { callIdempotencyKey } from "@needlework/core/kit";
import type { AgentRuntime } from "../loop/agent-loop.js";
import { prepareRound } from "../loop/round-call.js";
import { callKey } from "../canonical-json.js";
import type { JournaledRun } from "@needlework/durable";
import type { ApprovalDecisions } from "./approval-options.js";
import { type AgentCheckpoint, checkCheckpointScope, verifyCheckpoint } from "./checkpoint.js";
import { type DecisionEntry, signDecision } from "@needlework/durable/internal";
import { callsNeedingApproval, checkDecisions, refuseUnaskable } from "./gate.js";

/** A decided call of the paused round: what the decision entry records for it (its `approval` signed). @internal */
export type DecidedCall = DecisionEntry;

/** A checkpoint verified and its decisions checked and signed: what the resumed run needs. @internal */
export interface ApprovedPause {
  readonly checkpoint: AgentCheckpoint;
  /** The decision entry: a signed record per decided call of the paused round, by call id. */
  readonly decided: ReadonlyMap<string, DecidedCall>;
}

/**
 * Verifies a checkpoint (signature, format, agent, age) and checks the decisions against the calls
 * that need one now; throws {@link CheckpointError} (and runs nothing) when any of that fails.
 * Whether the pause was decided before is the journal's to say (see `runJournaled`). @internal
 */
export async function approvePause(
  runtime: AgentRuntime,
  input: AgentCheckpoint | string,
  decisions: ApprovalDecisions,
): Promise<ApprovedPause> {
  const { options } = runtime;
  const checkpoint = verifyCheckpoint(input, runtime.key);
  checkCheckpointScope(checkpoint, options.name, options.clock(), options.checkpointMaxAgeMs);
  const { runId, pending } = checkpoint;
  // The paused turn's calls, as its recorded assistant message carries them (their ids pair the tool
  // messages), with the call ids the checkpoint names (signed).
  const last = checkpoint.journal.turns.at(-1)?.message;
  // The arguments are the recorded message's (what the resumed round runs and checks its records
  // against); the checkpoint's `pending` shows them canonical (parsed as they run), for people.
  const toolCalls = pending.map((p, i) => {
    const recordedCall = last?.toolCalls?.[i];
    const same = recordedCall !== undefined && recordedCall.name === p.tool;
    return {
      id: recordedCall?.id ?? p.callId,
      name: p.tool,
      arguments: same ? (recordedCall.arguments as string | Record<string, unknown>) : p.arguments,
    };
  });
  const recorded = recordedKeys(checkpoint.journal);
  const identities = { runId, turn: 0, taken: new Set<string>(), keys: { ...recorded } };
  const calls = prepareRound(toolCalls, runtime.invoker, options.roundPolicy, identities).map((c, i) => {
    const callId = pending[i]!.callId;
    if (c.callId === callId || Object.hasOwn(recorded, c.key)) return c;
    return { ...c, callId, idempotencyKey: callIdempotencyKey(runId, callId) };
  });
  // Never trust the checkpoint's own flags alone: the tool's `requiresApproval` and the current
  // approval policy apply again, so a call they gate needs a decision whatever the checkpoint says.
  // Arguments are checked again before the decisions are: one that cannot be put to a person was
  // never asked about and needs no decision (the replayed round answers it without running it). The
  // plugins' gates apply again when the loop reaches the round: one that puts a call to a person the
  // decisions did not answer pauses the run again.
  const gatedNow = await callsNeedingApproval(calls, options.approvalPolicy);
  const gated = refuseUnaskable(
    calls,
    pending.map((p, i) => p.requiresApproval === true || gatedNow[i] === true),
    new Map(),
  );
  const decided = checkDecisions(
    pending.map((p, i) => ({ ...p, requiresApproval: gated[i] === true })),
    decisions,
  );
  // Each decision as a signed record over the run, the call, its tool and its arguments: the loop
  // runs a gated call only with one (a denied one never runs), and the journal keeps it.
  const records = new Map<string, DecidedCall>();
  for (const c of calls) {
    const decision = decided.get(c.callId);
    if (decision === undefined) continue;
    const approval = signDecision(
      runtime.key,
      { runId, callId: c.callId, tool: c.name, arguments: c.arguments },
      decision,
    );
    records.set(c.callId, { tool: c.name, arguments: c.arguments, idempotencyKey: c.idempotencyKey, approval });
  }
  return { checkpoint, decided: records };
}

/**
 * The keys the run's earlier rounds gave, as their records hold them, per "same tool, same
 * arguments": a call of the paused round that repeats one keeps the key recorded for it (read,
 * never derived from its own id).
 */
function recordedKeys(journal: Omit<JournaledRun, "end">): Record<string, string> {
  const byId = new Map(journal.calls.map((c) => [c.callId, c]));
  const keys: Record<string, string> = {};
  for (const turn of journal.turns.slice(0, -1))
    for (const toolCall of turn.message.toolCalls ?? []) {
      const call = byId.get(toolCall.id);
      const key = call?.outcome?.idempotencyKey || call?.idempotencyKey;
      const same = callKey(toolCall.name, toolCall.arguments as string | Record<string, unknown>);
      if (key && !Object.hasOwn(keys, same)) keys[same] = key;
    }
  return keys;
}
