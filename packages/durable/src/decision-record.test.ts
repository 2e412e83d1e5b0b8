// A decision record proves a reviewer's decision for one call of one run with its arguments, and
// nothing else: a store keeps it, so whoever writes the database must not be able to reuse or forge it.
import { describe, expect, it } from "vitest";
import {
  approvalDecisionVerifier,
  type DecidedCall,
  signApprovalDecision,
  signDecision,
  verifyDecision,
} from "./decision-record.js";

const key = new Uint8Array(32).fill(7);
const call: DecidedCall = { runId: "run_1", callId: "call_1", tool: "refund", arguments: { orderId: "o1", amount: 5 } };

describe("decision records", () => {
  it("verify for the call they were signed for, with its arguments as text or object", () => {
    const record = signDecision(key, call, "approved");
    expect(record.decision).toBe("approved");
    expect(verifyDecision(key, record, call)).toBe("approved");
    expect(verifyDecision(key, record, { ...call, arguments: '{"amount":5,"orderId":"o1"}' })).toBe("approved");
    expect(verifyDecision(key, JSON.parse(JSON.stringify(signDecision(key, call, "denied"))), call)).toBe("denied");
  });

  it.each([
    ["another run", { ...call, runId: "run_2" }],
    ["another call", { ...call, callId: "call_2" }],
    ["another tool", { ...call, tool: "chargeCard" }],
    ["other arguments", { ...call, arguments: { orderId: "o1", amount: 500 } }],
  ])("prove nothing for %s", (_, other) => {
    expect(verifyDecision(key, signDecision(key, call, "approved"), other)).toBeUndefined();
  });

  it("prove nothing when signed with another key, altered, or malformed", () => {
    const record = signDecision(key, call, "denied");
    expect(verifyDecision(new Uint8Array(32).fill(8), record, call)).toBeUndefined();
    expect(verifyDecision(key, { ...record, decision: "approved" }, call)).toBeUndefined();
    for (const malformed of [
      null,
      "approved",
      {},
      { decision: "approved" },
      { decision: "maybe", signature: record.signature },
    ])
      expect(verifyDecision(key, malformed, call)).toBeUndefined();
  });
});

describe("signApprovalDecision: an approval service signs what an engine run checks", () => {
  const secret = "an-approval-secret-of-at-least-32-bytes";

  it("signs with the agent's checkpointSecret as given (a string is its UTF-8 bytes, as createAgent takes it)", () => {
    const record = signApprovalDecision(secret, call, "approved");
    expect(verifyDecision(Buffer.from(secret, "utf8"), record, call)).toBe("approved");
    expect(signApprovalDecision(new TextEncoder().encode(secret), call, "denied")).toEqual(
      signDecision(Buffer.from(secret, "utf8"), call, "denied"),
    );
  });

  it.each([
    ["another secret", Buffer.from(`${secret}!`, "utf8"), call],
    ["another call", Buffer.from(secret, "utf8"), { ...call, callId: "call_2" }],
    ["other arguments", Buffer.from(secret, "utf8"), { ...call, arguments: { orderId: "o1", amount: 500 } }],
  ])("proves nothing for %s", (_, key, checked) => {
    expect(verifyDecision(key, signApprovalDecision(secret, call, "approved"), checked)).toBeUndefined();
  });

  it("refuses a secret no agent accepts, a malformed call or decision, without showing the secret", () => {
    const short = "sk-short-secret";
    let thrown: unknown;
    try {
      signApprovalDecision(short, call, "approved");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(String((thrown as Error).message)).toMatch(/at least 32 bytes, not 15/);
    expect(String((thrown as Error).message)).not.toContain(short);
    expect(() => signApprovalDecision(secret, { ...call, callId: "" }, "approved")).toThrow(/call.callId/);
    expect(() => signApprovalDecision(secret, call, "maybe" as "approved")).toThrow(/"approved" or "denied"/);
  });
});

describe("approvalDecisionVerifier: what takes records outside the loop checks them as the loop does", () => {
  const secret = "an-approval-secret-of-at-least-32-bytes";
  const verify = approvalDecisionVerifier(secret);

  it("answers the decision of a record signed with the secret for exactly the call, as the loop's check does", () => {
    for (const decision of ["approved", "denied"] as const) {
      const record = signApprovalDecision(secret, call, decision);
      expect(verify(record, call)).toBe(decision);
      expect(verify(record, call)).toBe(verifyDecision(Buffer.from(secret, "utf8"), record, call));
    }
    expect(
      approvalDecisionVerifier(new TextEncoder().encode(secret))(signApprovalDecision(secret, call, "approved"), call),
    ).toBe("approved");
  });

  it.each([
    ["signed with another secret", signApprovalDecision(`${secret}-forged`, call, "approved"), call],
    ["signed for another call", signApprovalDecision(secret, { ...call, callId: "call_2" }, "approved"), call],
    ["signed for another run", signApprovalDecision(secret, { ...call, runId: "run_2" }, "approved"), call],
    [
      "signed for other arguments",
      signApprovalDecision(secret, call, "approved"),
      { ...call, arguments: { amount: 6 } },
    ],
    ["garbage", { decision: "approved", signature: "f".repeat(64) }, call],
    ["not a record", "approved", call],
  ])("answers undefined for a record %s", (_, record, checked) => {
    expect(verify(record, checked)).toBeUndefined();
  });

  it("refuses a secret no agent accepts, without showing it", () => {
    const short = "sk-short-secret";
    expect(() => approvalDecisionVerifier(short)).toThrow(/approvalDecisionVerifier: .*at least 32 bytes, not 15/);
    expect(() => approvalDecisionVerifier(short)).not.toThrow(new RegExp(short));
    expect(() => approvalDecisionVerifier(undefined as unknown as string)).toThrow(TypeError);
  });
});
