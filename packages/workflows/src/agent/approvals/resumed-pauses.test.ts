import { describe, expect, it } from "vitest";
import { assertStatus, checkpointOf, harness } from "../../../test/agent-fixtures.js";

describe("resumed pauses without a store", () => {
  it("a run that pauses twice resumes twice: each pause once, calls that ran never again", async () => {
    const h = harness();
    const refund = (amount: number) => ({ toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount } }] });
    const { agent, model } = h.agent([refund(10), refund(20), { text: "Both refunded." }]);
    const first = checkpointOf(await agent.run("Refund o1 twice", { runId: "twice" }));
    const second = checkpointOf(await agent.resume(first, { [first.pending[0]!.callId]: "approved" }));
    expect(second.id).not.toBe(first.id);
    expect(second.journal.turns).toHaveLength(2);
    const done = await agent.resume(second, { [second.pending[0]!.callId]: "approved" });
    assertStatus(done, "completed");
    expect(h.world.callsOf("refund")).toHaveLength(2);
    expect(model.requests).toHaveLength(3);
    await expect(agent.resume(first, { [first.pending[0]!.callId]: "approved" })).rejects.toMatchObject({
      code: "CHECKPOINT_ALREADY_RESUMED",
    });
    expect(h.world.callsOf("refund")).toHaveLength(2);
  });
});
