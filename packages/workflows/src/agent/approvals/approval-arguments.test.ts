import { checkApprovalArguments, MAX_APPROVAL_ARGUMENTS_CHARS } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { checkpointOf, harness, toolReply } from "../../../test/agent-fixtures.js";

describe("arguments are checked before anyone is asked", () => {
  it("a gated call with invalid arguments gets INVALID_ARGUMENTS and no approval prompt", async () => {
    const h = harness();
    const { agent, model } = h.agent([
      { toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: "all of it" } }] },
      { text: "I could not refund it." },
    ]);
    const result = await agent.run("Refund o1");
    expect(result.status).not.toBe("awaiting_approval");
    expect(h.world.log).toEqual([]);
    expect(result.calls).toEqual([expect.objectContaining({ tool: "refund", errorCode: "INVALID_ARGUMENTS" })]);
    const reply = toolReply(model.requests[1]!.messages, result.calls[0]!.callId);
    expect(reply).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(String(reply["message"])).toContain("amount");
  });

  it("arguments too long to show a person whole are refused (APPROVAL_ARGUMENTS_TOO_LONG), never cut", async () => {
    const h = harness();
    const orderId = "o".repeat(MAX_APPROVAL_ARGUMENTS_CHARS);
    const { agent, model } = h.agent([
      { toolCalls: [{ name: "refund", arguments: { orderId, amount: 40 } }] },
      { text: "Too long." },
    ]);
    const result = await agent.run("Refund");
    expect(result.status).not.toBe("awaiting_approval");
    expect(h.world.log).toEqual([]);
    const reply = toolReply(model.requests[1]!.messages, result.calls[0]!.callId);
    expect(reply).toMatchObject({ status: "error", error_code: "APPROVAL_ARGUMENTS_TOO_LONG", retriable: false });
    expect(String(reply["suggestion"])).toMatch(/split|shorten/i);
  });

  it("a round pausing beside a refused call resumes without asking about it, and never runs it", async () => {
    const h = harness();
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "refund", arguments: { orderId: "o1", amount: 40 } },
          { name: "refund", arguments: { orderId: "o2", amount: "x" } },
        ],
      },
      { text: "Done." },
    ]);
    const checkpoint = checkpointOf(await agent.run("Refund o1 and o2"));
    expect(checkpoint.pending.map((p) => p.requiresApproval)).toEqual([true, false]);
    const [first, second] = checkpoint.pending.map((p) => p.callId);
    const result = await agent.resume(checkpoint, { [first!]: "approved" });
    expect(h.world.log.map((e) => e.args)).toEqual([{ orderId: "o1", amount: 40 }]);
    expect(result.calls.find((c) => c.callId === second)?.errorCode).toBe("INVALID_ARGUMENTS");
  });

  it("shows every argument in the schema's key order, whatever order the model sent them in", () => {
    const h = harness();
    const refund = h.invoker.get("refund")!;
    const checked = checkApprovalArguments(refund, '{"amount":40,"orderId":"o1"}', { callId: "c1" });
    expect(checked.ok && checked.text).toBe('{\n  "orderId": "o1",\n  "amount": 40\n}');
  });
});
