import { createHmac, timingSafeEqual } from "node:crypto";
import { argumentsHash } from "@needlework/core";
import type { ApprovalRecord } from "./approval-record.js";

/** A reviewer's decision on one call, as a decision record holds it. */
type ApprovalDecision = ApprovalRecord["decision"];

/**
 * What a decision record is about: the call, in its run, with the arguments it runs with.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export interface DecidedCall {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them (text or object); hashed canonically. */
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
