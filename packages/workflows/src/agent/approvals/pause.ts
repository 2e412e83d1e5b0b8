import { randomBytes } from "node:crypto";
import { DEFAULT_ARGUMENT_LIMITS, toJsonSafe } from "@needlework/core";
import { parseToolArguments } from "@needlework/core/internal";
import type { CallVerdict } from "../loop/call-gate.types.js";
import type { RoundCall } from "../loop/round-call.js";
import type { JournaledRuntime, RunEnd, RunState } from "../loop/run-state.js";
import { type AgentCheckpoint, type PendingApproval, signCheckpoint } from "./checkpoint.js";

/**
 * The arguments a person is shown for a call: what will run, never the model's raw text. Parsed and
 * validated by the tool's schema (duplicate keys resolved as JSON.parse and the tool resolve them,
 * keys in the schema's order, unknown keys dropped, defaults filled), as JSON text when the model sent
 * text and as the object when it sent one. So `{"amount":40,"amount":4000}` is shown as
 * `{"amount":4000}`, which is what an approval runs. Arguments the schema refuses (or of a tool the
 * agent lacks) never run, so they are kept as sent.
 */
function shownArguments(call: RoundCall): string | Record<string, unknown> {
  if (call.tool === undefined) return call.arguments;
  const parsed = parseToolArguments(call.arguments, call.tool.input, DEFAULT_ARGUMENT_LIMITS);
  if (!parsed.ok) return call.arguments;
  const value = toJsonSafe(parsed.value) as Record<string, unknown>;
  return typeof call.arguments === "string" ? JSON.stringify(value) : value;
}

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
      arguments: shownArguments(c),
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
