import type { ToolOutcome } from "@needlework/core";
import { callIdempotencyKey } from "@needlework/core/internal";
import { type AgentRuntime, callIdentities, type RunState } from "../loop/agent-loop.js";
import { prepareRound, type RoundCall } from "../loop/round-call.js";
import { approvalDenied } from "../loop/synthetic-outcomes.js";
import { refusals, reviewRound } from "../loop/call-gate.js";
import { emptyBudget } from "../policies/budgets.js";
import { emptyStall } from "../policies/stall.js";
import type { ApprovalDecisions } from "./approval-options.js";
import { type AgentCheckpoint, checkCheckpointScope, verifyCheckpoint } from "./checkpoint.js";
import { CheckpointError } from "./checkpoint-error.js";
import type { ResumedCheckpointStore } from "./claims.js";
import { signDecision, type ApprovalRecord } from "./decision-record.js";
import { callsNeedingApproval, checkDecisions, refuseUnaskable } from "./gate.js";
import type { RoundGate } from "../loop/run-state.js";

/** A checkpoint verified, its decisions checked and its id claimed: what the resumed run needs. @internal */
export interface ApprovedRound {
  readonly state: RunState;
  /** The paused round's calls, named as when it paused. */
  readonly calls: readonly RoundCall[];
  /**
   * Outcomes of the calls that do not run, by call id: denied (`APPROVAL_DENIED`), or with arguments
   * that cannot be put to a person (`INVALID_ARGUMENTS`, `APPROVAL_ARGUMENTS_TOO_LONG`).
   */
  readonly preset: ReadonlyMap<string, ToolOutcome>;
  /** The gated calls and a signed decision record for each of them. */
  readonly gate: RoundGate;
}

/**
 * Verifies and claims a checkpoint and checks the decisions against it; throws
 * {@link CheckpointError} (and runs nothing) when any of that fails. @internal
 */
export async function approveRound(
  runtime: AgentRuntime,
  resumedCheckpoints: ResumedCheckpointStore,
  input: AgentCheckpoint | string,
  decisions: ApprovalDecisions,
): Promise<ApprovedRound> {
  const { options } = runtime;
  const checkpoint = verifyCheckpoint(input, runtime.key);
  checkCheckpointScope(checkpoint, options.name, options.clock(), options.checkpointMaxAgeMs);
  // A deep copy: the caller's checkpoint object must stay as it was signed.
  const state = {
    ...(JSON.parse(JSON.stringify(checkpoint.state)) as Omit<RunState, "runId">),
    runId: checkpoint.runId,
  } as RunState;
  // Checkpoints written before budgets and stall detection existed carry neither.
  state.budget ??= emptyBudget();
  state.stall ??= emptyStall();
  // The paused turn's calls, as its assistant message carries them (their ids pair the tool
  // messages), named again from the state as they were named when the run paused.
  const last = state.messages.findLast((m) => m.role === "assistant");
  const toolCalls = checkpoint.pending.map((p, i) => ({
    id: (last?.role === "assistant" ? last.toolCalls?.[i]?.id : undefined) ?? p.callId,
    name: p.tool,
    arguments: p.arguments,
  }));
  const named = prepareRound(toolCalls, runtime.invoker, options.roundPolicy, callIdentities(state));
  // The checkpoint is signed: its call ids win over a renaming (a checkpoint of an older version).
  const calls = named.map((c, i) => {
    const callId = checkpoint.pending[i]!.callId;
    return c.callId === callId ? c : { ...c, callId, idempotencyKey: callIdempotencyKey(state.runId, callId) };
  });
  // Never trust the checkpoint's own flags alone: the tool's `requiresApproval` and the current
  // approval policy apply again, so a call they gate needs a decision whatever the checkpoint says.
  const gatedNow = await callsNeedingApproval(calls, options.approvalPolicy);
  // Arguments are checked again before the decisions are: one that cannot be put to a person was
  // never asked about, needs no decision, and never runs. The plugins' gates too (the injection
  // policy), on the checkpoint's state: a call they refuse is answered without running, whatever a
  // decision says; one they put to a person needs a decision.
  const verdicts = await reviewRound(runtime.callGates, state, calls);
  const refused = new Map<string, ToolOutcome>();
  const gated = refuseUnaskable(
    calls,
    checkpoint.pending.map(
      (p, i) =>
        p.requiresApproval === true || gatedNow[i] === true || verdicts.get(calls[i]!.callId)?.action === "approve",
    ),
    refused,
  );
  const pending = checkpoint.pending.map((p, i) => ({ ...p, requiresApproval: gated[i] === true }));
  const decided = checkDecisions(pending, decisions);
  if (!(await resumedCheckpoints.claim(checkpoint.id))) {
    throw new CheckpointError(
      "CHECKPOINT_ALREADY_RESUMED",
      `Checkpoint ${checkpoint.id} (run ${checkpoint.runId}) was already resumed; its calls ran then and will not run again.`,
    );
  }
  const preset = new Map([...refused, ...refusals(verdicts)]);
  for (const c of calls) if (decided.get(c.callId) === "denied") preset.set(c.callId, approvalDenied(c));
  // Each decision as a signed record over the run, the call, its tool and its arguments: the loop
  // runs a gated call only with one, and the journal keeps it with the call's start.
  const evidence = new Map<string, ApprovalRecord>();
  for (const c of calls) {
    const decision = decided.get(c.callId);
    if (decision !== undefined)
      evidence.set(
        c.callId,
        signDecision(
          runtime.key,
          { runId: state.runId, callId: c.callId, tool: c.name, arguments: c.arguments },
          decision,
        ),
      );
  }
  return { state, calls, preset, gate: { gated, evidence } };
}
