import type { DecisionEvidence, DurableExecution, RoundStart } from "@needlework/durable";
import { decisionCheck } from "../approvals/gate.js";
import type { RoundCall } from "./round-call.js";

/**
 * What a round's start step records: a fresh nonce (an engine that finds a recorded start with
 * another nonce knows the round's calls without a recorded outcome were in flight) and the keys of
 * the round's calls, in the model's order. `globalThis.crypto`, not `node:crypto`: the loop's
 * deterministic core imports nothing an engine's sandbox forbids.
 * @internal
 */
export function roundStart(calls: readonly RoundCall[]): Promise<RoundStart> {
  return Promise.resolve({ nonce: globalThis.crypto.randomUUID(), keys: calls.map((c) => c.idempotencyKey) });
}

/**
 * The decision evidence the run's execution holds for a round's calls: a call's signed record
 * (checked by the loop with the key before anything runs), or `"settled"` when its outcome is
 * recorded. A recorded call start alone proves nothing; a call with none is left out (a gated one
 * pauses the round). A gated call's wait gets the gate's own check of a record for run `runId`
 * under `key`: an engine's wait drops a record it refuses and waits on. The loop asks the same
 * question of every run: whether the answer comes from a replay is the execution's business.
 * @internal
 */
export async function decisionsOf(
  execution: DurableExecution,
  calls: readonly RoundCall[],
  gated: readonly boolean[],
  key: Uint8Array,
  runId: string,
): Promise<ReadonlyMap<string, DecisionEvidence>> {
  const evidence = new Map<string, DecisionEvidence>();
  const found = await Promise.all(
    calls.map((c, i) =>
      gated[i] === true
        ? execution.waitForDecision(c.callId, true, decisionCheck(key, runId, c))
        : execution.waitForDecision(c.callId, false),
    ),
  );
  calls.forEach((c, i) => {
    const held = found[i];
    if (held !== undefined) evidence.set(c.callId, held);
  });
  return evidence;
}
