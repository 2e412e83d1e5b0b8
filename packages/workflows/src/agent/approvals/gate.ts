import type { ApprovalDecision, ApprovalDecisions, ApprovalPolicy } from "./approval-options.js";
import { parsedArguments } from "../canonical-json.js";
import type { PendingApproval } from "./checkpoint.js";
import { CheckpointError } from "./checkpoint-error.js";
import type { RoundCall } from "../loop/round-call.js";

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
