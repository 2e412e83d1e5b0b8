import { checkApprovalArguments, type ToolInvoker, type ToolOutcome } from "@needlework/core";
import type { ApprovalDecision, ApprovalDecisions, ApprovalPolicy } from "./approval-options.js";
import { parsedArguments } from "../canonical-json.js";
import type { PendingApproval } from "./checkpoint.js";
import { CheckpointError } from "./checkpoint-error.js";
import type { ApprovalRecord, DecisionCheck } from "@needlework/durable";
import { verifyDecision } from "@needlework/durable/internal";
import type { RoundCall } from "../loop/round-call.js";
import type { RoundGate } from "../loop/run-state.js";
import { approvalDenied, approvalMissing } from "../loop/synthetic-outcomes.js";

/**
 * Which calls of a round need a human decision: tools declared with `requiresApproval`, and calls
 * the agent's `approvalPolicy` flags. Checked for every call before any call of the round runs.
 * @internal
 */
export async function callsNeedingApproval(
  calls: readonly RoundCall[],
  policy: ApprovalPolicy | undefined,
): Promise<boolean[]> {
  return Promise.all(
    calls.map(async (call) => {
      if (call.tool?.options.requiresApproval === true) return true;
      if (!policy) return false;
      return (
        (await policy({
          tool: call.name,
          callId: call.callId,
          arguments: parsedArguments(call.arguments),
          descriptor: call.tool,
        })) === true
      );
    }),
  );
}

/**
 * Whether one call, run outside the loop (a dead letter replayed), needs a person's decision first:
 * its tool's `requiresApproval`, or the agent's `approvalPolicy`. Fails closed: a policy that throws
 * counts as asking for approval.
 * @internal
 */
export async function callNeedsApproval(
  invoker: ToolInvoker,
  policy: ApprovalPolicy | undefined,
  call: { readonly tool: string; readonly arguments: unknown; readonly callId?: string },
): Promise<boolean> {
  const descriptor = invoker.get(call.tool);
  if (descriptor?.options.requiresApproval === true) return true;
  if (!policy) return false;
  try {
    const request = { tool: call.tool, callId: call.callId ?? "", arguments: parsedArguments(call.arguments) };
    return (await policy({ ...request, descriptor })) === true;
  } catch {
    return true;
  }
}

/**
 * Checks that `decisions` answer exactly the calls awaiting approval, each with "approved" or
 * "denied". Throws {@link CheckpointError} (`CHECKPOINT_DECISIONS_INVALID`) otherwise.
 * @internal
 */
export function checkDecisions(
  pending: readonly PendingApproval[],
  decisions: ApprovalDecisions,
): Map<string, ApprovalDecision> {
  if (typeof decisions !== "object" || decisions === null) {
    throw new CheckpointError("CHECKPOINT_DECISIONS_INVALID", 'Pass decisions as { [callId]: "approved" | "denied" }.');
  }
  const gated = pending.filter((p) => p.requiresApproval);
  const result = new Map<string, ApprovalDecision>();
  const problems: string[] = [];
  for (const call of gated) {
    // Own properties only: a polluted Object.prototype must not approve a gated call.
    const decision = Object.hasOwn(decisions, call.callId) ? decisions[call.callId] : undefined;
    if (decision === "approved" || decision === "denied") result.set(call.callId, decision);
    else if (decision === undefined) problems.push(`no decision for ${call.callId} (${call.tool})`);
    else problems.push(`${call.callId}: ${JSON.stringify(decision)} is not "approved" or "denied"`);
  }
  for (const id of Object.keys(decisions)) {
    if (!gated.some((p) => p.callId === id))
      problems.push(`${id} is not a call awaiting approval (awaiting: ${gated.map((p) => p.callId).join(", ")})`);
  }
  if (problems.length > 0)
    throw new CheckpointError(
      "CHECKPOINT_DECISIONS_INVALID",
      `The decisions do not match the checkpoint: ${problems.join("; ")}. Nothing ran; the checkpoint can still be resumed.`,
    );
  return result;
}

/**
 * Checks the arguments of the gated calls before anyone is asked: a call whose arguments its tool's
 * schema refuses gets `INVALID_ARGUMENTS`, one too long to show a person whole gets
 * `APPROVAL_ARGUMENTS_TOO_LONG`; neither is put to a reviewer, and neither ever runs (their outcome
 * is preset). A gated call of a tool the agent does not have stays gated (the invoker answers it
 * `UNKNOWN_TOOL` whatever is decided). Returns the flags of the calls still to ask about.
 * @internal
 */
export function refuseUnaskable(
  calls: readonly RoundCall[],
  gated: readonly boolean[],
  refused: Map<string, ToolOutcome>,
): boolean[] {
  return calls.map((call, i) => {
    if (gated[i] !== true) return false;
    if (call.tool === undefined) return true;
    const checked = checkApprovalArguments(call.tool, call.arguments, { callId: call.callId });
    if (checked.ok) return true;
    refused.set(call.callId, checked.outcome);
    return false;
  });
}

/**
 * The one check of a decision record: the decision it proves for this run, call, tool and
 * arguments under the agent's key, or `undefined`. The gate applies it before a round runs, and an
 * engine's wait applies it (through {@link decisionCheck}) before it takes a record as the decision.
 */
function verified(key: Uint8Array, runId: string, call: RoundCall, record: unknown) {
  return verifyDecision(key, record, { runId, callId: call.callId, tool: call.name, arguments: call.arguments });
}

/**
 * What an engine's wait for `call`'s decision checks a record with: the gate's own check, so a
 * record it refuses (forged, or signed for another run, call or arguments) never ends the wait.
 * @internal
 */
export function decisionCheck(key: Uint8Array, runId: string, call: RoundCall): DecisionCheck {
  return {
    tool: call.name,
    arguments: call.arguments,
    verifies: (record) => verified(key, runId, call, record) !== undefined,
  };
}

/**
 * True when every gated call of the round has evidence of a decision: a journaled outcome, or a
 * record that verifies for this run, call, tool and arguments. A journaled call start, or a record
 * signed with another key or for other arguments, is no evidence: the round pauses again.
 * @internal
 */
export function proven(key: Uint8Array, runId: string, calls: readonly RoundCall[], gate: RoundGate): boolean {
  return calls.every((call, i) => {
    if (gate.gated[i] !== true) return true;
    const evidence = gate.evidence.get(call.callId);
    return evidence === "settled" || verified(key, runId, call, evidence) !== undefined;
  });
}

/**
 * The one check before a round runs: a gated call runs only with a decision record that verifies
 * as "approved" for its run, call, tool and arguments (or, replaying, is answered from its journaled
 * outcome). A denied one gets `APPROVAL_DENIED`; one without a valid record `APPROVAL_REQUIRED`;
 * both are added to `presets` (never run). Returns the approving records, for the journal.
 * @internal
 */
export function enforceGate(
  key: Uint8Array,
  runId: string,
  calls: readonly RoundCall[],
  gate: RoundGate,
  presets: Map<string, ToolOutcome>,
): Map<string, ApprovalRecord> {
  const approved = new Map<string, ApprovalRecord>();
  calls.forEach((call, i) => {
    if (presets.has(call.callId)) return;
    const evidence = gate.evidence.get(call.callId);
    if (evidence === "settled") return;
    if (gate.gated[i] !== true) {
      // Not gated now (the policy changed since the pause), but a person denied it: it never runs.
      if (evidence !== undefined && verified(key, runId, call, evidence) === "denied")
        presets.set(call.callId, approvalDenied(call));
      return;
    }
    const decision = verified(key, runId, call, evidence);
    if (decision === "approved") approved.set(call.callId, evidence as ApprovalRecord);
    else presets.set(call.callId, decision === "denied" ? approvalDenied(call) : approvalMissing(call));
  });
  return approved;
}
