import { randomBytes } from "node:crypto";
import type { CallVerdict } from "../loop/call-gate.types.js";
import type { RoundCall } from "../loop/round-call.js";
import type { JournaledRuntime, RunEnd, RunState } from "../loop/run-state.js";
import { type AgentCheckpoint, type PendingApproval, signCheckpoint } from "./checkpoint.js";

/**
 * Pauses the run before a round with gated calls: the pause is the run's last journal entry, and the
 * checkpoint is the run's journal, serialized and signed, with the round's calls awaiting decisions.
 * @internal
 */
export function pauseForApproval(
  runtime: JournaledRuntime,
  state: RunState,
  calls: readonly RoundCall[],
  gated: readonly boolean[],
  verdicts?: ReadonlyMap<string, CallVerdict>,
): RunEnd {
  const { options, key } = runtime;
  const pending: PendingApproval[] = calls.map((c, i) => {
    const verdict = verdicts?.get(c.callId);
    return {
      callId: c.callId,
      tool: c.name,
      arguments: c.arguments,
      requiresApproval: gated[i] === true,
      ...(verdict?.action === "approve" ? { reason: verdict.reason } : {}),
      ...(verdict?.action === "approve" && verdict.untrustedArguments !== undefined
        ? { untrustedArguments: [...verdict.untrustedArguments] }
        : {}),
    };
  });
  const { runId } = state;
  const { end: _end, ...recorded } = runtime.journal();
  const checkpoint: AgentCheckpoint = signCheckpoint(
    {
      version: 2,
      id: randomBytes(16).toString("hex"),
      agent: options.name,
      runId,
      createdAt: new Date(options.clock()).toISOString(),
      pending,
      journal: recorded,
    },
    key,
  );
  return { status: "awaiting_approval", checkpoint, pendingApprovals: pending.filter((p) => p.requiresApproval) };
}
