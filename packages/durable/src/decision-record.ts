import { createHmac, timingSafeEqual } from "node:crypto";
import { argumentsHash } from "@needlework/core";
import type { ApprovalRecord } from "./approval-record.js";

/** A reviewer's decision on one call, as a decision record holds it. */
type ApprovalDecision = ApprovalRecord["decision"];

/**
 * What a decision record is about: the call, in its run, with the arguments it runs with (what the
 * reviewer was shown). A record proves nothing for any other run, call, tool or arguments.
 *
 * @example
 * ```ts
 * const call: DecidedCall = { runId: "refund-4711", callId: "call_1_1", tool: "refund", arguments: { orderId: "o1", amount: 40 } };
 * ```
 */
export interface DecidedCall {
  /** The run's id (on an engine: the workflow's id, or its key). */
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them (text or object); hashed canonically (parsed, keys sorted). */
  readonly arguments: unknown;
}

// Decision records are signed with a key of their own, derived from the checkpoint key, so a
// checkpoint's signature can never pass for a decision's (and the other way round).
const derived = new WeakMap<Uint8Array, Buffer>();
function decisionKey(key: Uint8Array): Buffer {
  let found = derived.get(key);
  if (found === undefined) {
    found = createHmac("sha256", key).update("needlework/approval-decision/v1").digest();
    derived.set(key, found);
  }
  return found;
}

function mac(key: Uint8Array, call: DecidedCall, decision: ApprovalDecision): string {
  // JSON of an array: unambiguous whatever the ids hold.
  const payload = JSON.stringify([
    "approval-decision-v1",
    call.runId,
    call.callId,
    call.tool,
    argumentsHash(call.arguments),
    decision,
  ]);
  return createHmac("sha256", decisionKey(key)).update(payload).digest("hex");
}

/**
 * Signs a reviewer's decision on `call` with a key derived from the checkpoint key `key`.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function signDecision(key: Uint8Array, call: DecidedCall, decision: ApprovalDecision): ApprovalRecord {
  return { decision, signature: mac(key, call, decision) };
}

/**
 * The shortest `checkpointSecret` accepted, in bytes (HMAC-SHA256 needs at least this much key):
 * what `createAgent` requires, and what {@link signApprovalDecision} and
 * {@link approvalDecisionVerifier} require of the same secret.
 *
 * @example
 * ```ts
 * if (Buffer.byteLength(secret, "utf8") < MIN_CHECKPOINT_SECRET_BYTES) throw new Error("checkpointSecret too short");
 * ```
 */
export const MIN_CHECKPOINT_SECRET_BYTES = 32;

/**
 * A reviewer's decision on one gated call, signed as the run checks it: what an approval service sends
 * to a run that waits on an engine (`sendDbosDecision` of `@needlework/dbos`, `sendRestateDecision` of
 * `@needlework/restate`). `secret` is the agent's `checkpointSecret`, as given to `createAgent` (a
 * string is taken as its UTF-8 bytes); the record is an HMAC-SHA256, with a key derived from it, over
 * the run id, the call id, the tool, the hash of the call's canonical arguments and the decision. The
 * loop runs the call only with a record that verifies for exactly that run, call, tool and arguments:
 * one signed with another secret, or for another call, proves nothing and the call does not run.
 * Throws a `TypeError` (naming no part of the secret) for a secret shorter than 32 bytes, which no
 * agent accepts, or a malformed call or decision.
 *
 * @example
 * ```ts
 * import { signApprovalDecision } from "@needlework/durable";
 * const record = signApprovalDecision(process.env.CHECKPOINT_SECRET!, { runId, callId, tool: "refund", arguments }, "approved");
 * await sendDbosDecision(runId, callId, record);
 * ```
 */
export function signApprovalDecision(
  secret: string | Uint8Array,
  call: DecidedCall,
  decision: ApprovalDecision,
): ApprovalRecord {
  const key = secretKey("signApprovalDecision", secret);
  for (const field of ["runId", "callId", "tool"] as const)
    if (typeof call?.[field] !== "string" || call[field] === "")
      throw new TypeError(
        `signApprovalDecision: call.${field} must be a non-empty string (the call the reviewer saw).`,
      );
  if (decision !== "approved" && decision !== "denied")
    throw new TypeError('signApprovalDecision: the decision must be "approved" or "denied".');
  return signDecision(key, call, decision);
}

/** The key of a `checkpointSecret` as agents take it (a string as its UTF-8 bytes); `where` names the caller. */
function secretKey(where: string, secret: string | Uint8Array): Uint8Array {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  if (!(key instanceof Uint8Array))
    throw new TypeError(`${where}: the secret must be the agent's checkpointSecret (a string or bytes).`);
  if (key.byteLength < MIN_CHECKPOINT_SECRET_BYTES)
    throw new TypeError(
      `${where}: the secret must be the agent's checkpointSecret, at least ${MIN_CHECKPOINT_SECRET_BYTES} bytes, not ${key.byteLength}: an agent refuses a shorter one.`,
    );
  return key;
}

/**
 * A check of decision records for one agent's `checkpointSecret`: the check the run loop applies
 * before a gated call runs, for what receives records outside the loop (Restate's `decide` handler
 * answers a record that does not verify `"refused"` and keeps the wait open). `verify(record, call)`
 * answers the decision `record` proves for exactly `call` (its run, call id, tool and arguments), or
 * `undefined` when it proves nothing: malformed, signed with another secret, or for another call.
 * Throws a `TypeError` (naming no part of the secret) for a secret an agent refuses.
 *
 * @example
 * ```ts
 * import { approvalDecisionVerifier } from "@needlework/durable";
 * const verify = approvalDecisionVerifier(process.env.CHECKPOINT_SECRET!);
 * if (verify(record, { runId, callId, tool: "refund", arguments }) === undefined) console.log("refused");
 * ```
 */
export function approvalDecisionVerifier(
  secret: string | Uint8Array,
): (record: unknown, call: DecidedCall) => ApprovalDecision | undefined {
  const key = secretKey("approvalDecisionVerifier", secret);
  return (record, call) => verifyDecision(key, record, call);
}

/**
 * The decision `record` proves for `call`, or `undefined` when it proves nothing: malformed, signed
 * with another key, or made for another run, call or arguments.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function verifyDecision(key: Uint8Array, record: unknown, call: DecidedCall): ApprovalDecision | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  const decision = Object.hasOwn(record, "decision") ? (record as { decision?: unknown }).decision : undefined;
  const signature = Object.hasOwn(record, "signature") ? (record as { signature?: unknown }).signature : undefined;
  if (decision !== "approved" && decision !== "denied") return undefined;
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return undefined;
  let expected: string;
  try {
    expected = mac(key, call, decision);
  } catch {
    return undefined;
  }
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(signature, "hex")) ? decision : undefined;
}
