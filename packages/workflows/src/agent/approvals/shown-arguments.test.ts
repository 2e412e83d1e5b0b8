import type { AgentEvent } from "@needlework/workflows";
import { describe, expect, it } from "vitest";
import { checkpointOf, harness } from "../../../test/agent-fixtures.js";

// The model's raw text holds the amount twice; JSON.parse (and so the tool) keeps the last one.
const DUPLICATED = '{"orderId":"o1","amount":40,"amount":4000}';

describe("approvals show the arguments that will run, never the model's raw text", () => {
  it("a duplicated key is shown as it runs (4000), and approving runs exactly what was shown", async () => {
    const h = harness();
    const { agent } = h.agent([{ toolCalls: [{ name: "refund", arguments: DUPLICATED }] }, { text: "Refunded." }]);
    const stream = agent.stream("Refund o1", { runId: "run-dup" });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    const checkpoint = checkpointOf(result);
    const shown = result.status === "awaiting_approval" ? result.pendingApprovals : [];
    expect(shown).toHaveLength(1);
    const canonical = '{"orderId":"o1","amount":4000}';
    // Every place a person sees the call: the result, the event, the checkpoint.
    expect(shown[0]!.arguments).toBe(canonical);
    const required = events.find((e) => e.type === "approval-required");
    expect(required?.type === "approval-required" && required.pending.map((p) => p.arguments)).toEqual([canonical]);
    expect(checkpoint.pending.map((p) => p.arguments)).toEqual([canonical]);
    const requiredPending = required?.type === "approval-required" ? required.pending : [];
    for (const place of [JSON.stringify(shown), JSON.stringify(requiredPending), JSON.stringify(checkpoint.pending)])
      expect(place).not.toMatch(/amount\\?":40(?!\d)/);
    expect(h.world.log).toEqual([]);

    const done = await agent.resume(checkpoint, { [shown[0]!.callId]: "approved" });
    expect(done.status).toBe("completed");
    expect(h.world.log.map((e) => e.args)).toEqual([JSON.parse(shown[0]!.arguments as string)]);
  });

  it("object arguments are shown parsed by the schema (its key order), and run as shown", async () => {
    const h = harness();
    const { agent } = h.agent([
      { toolCalls: [{ name: "refund", arguments: { amount: 40, orderId: "o1" } }] },
      { text: "Refunded." },
    ]);
    const result = await agent.run("Refund o1");
    const shown = result.status === "awaiting_approval" ? result.pendingApprovals : [];
    expect(JSON.stringify(shown.map((p) => p.arguments))).toBe('[{"orderId":"o1","amount":40}]');
    const done = await agent.resume(checkpointOf(result), { [shown[0]!.callId]: "approved" });
    expect(done.status).toBe("completed");
    expect(h.world.log.map((e) => e.args)).toEqual([{ orderId: "o1", amount: 40 }]);
  });
});
