import { describe, expect, it } from "vitest";
import { createAgent } from "../agent.js";
import { ScriptedChatClient } from "@needlework/core";
import { InMemoryRunStore } from "@needlework/durable";
import { contentionContract } from "../../../test/contention-contract.js";
import { FakeCrm, resumeAgent, resumeContract } from "../../../test/resume-contract.js";

describe("InMemoryRunStore", () => {
  resumeContract(async () => {
    const store = new InMemoryRunStore();
    return { first: store, second: store };
  });
  contentionContract(async (leaseMs) => {
    const store = new InMemoryRunStore(leaseMs === undefined ? {} : { leaseMs });
    return { first: store, second: store };
  });

  it("journals each turn and call with its idempotency key, and keeps copies of what it was given", async () => {
    const store = new InMemoryRunStore();
    const { agent } = resumeAgent(new FakeCrm(), store, [
      { toolCalls: [{ name: "upsertContact", arguments: { id: "c9" } }] },
      { text: "Done." },
    ]);
    await agent.run("Sync c9.", { runId: "run_mem_1" });
    const run = await store.journal.read("run_mem_1");
    expect(run).toMatchObject({
      runId: "run_mem_1",
      agent: "crm-sync",
      input: "Sync c9.",
      instructions: "Sync contacts.",
      end: { status: "completed" },
    });
    expect(run?.calls).toEqual([
      expect.objectContaining({
        callId: "call_1_1",
        tool: "upsertContact",
        arguments: { id: "c9" },
        idempotencyKey: "run_mem_1:call_1_1",
      }),
    ]);
    expect(run?.calls[0]?.outcome?.formatted).toContain('"status":"ok"');
    (run!.calls as unknown as unknown[]).length = 0;
    expect((await store.journal.read("run_mem_1"))?.calls).toHaveLength(1);
  });

  it("an agent without a store refuses resumeRun, and a malformed store is refused by createAgent", async () => {
    const { agent } = resumeAgent(new FakeCrm(), undefined as never, [{ text: "ok" }]);
    await expect(agent.resumeRun("run_x")).rejects.toThrow(/has no `store`; create it with createAgent/);
    const invoker = agent.tools;
    expect(() =>
      createAgent(
        { invoker },
        { name: "a", instructions: "", chatClient: new ScriptedChatClient([]), store: {} as never },
      ),
    ).toThrow(/^createAgent: option 'store' must be an AgentStore \{ journal, deadLetters \}/);
    // A store without the deprecated claims is a whole store.
    const { journal, deadLetters } = new InMemoryRunStore();
    expect(() =>
      createAgent(
        { invoker },
        { name: "a", instructions: "", chatClient: new ScriptedChatClient([]), store: { journal, deadLetters } },
      ),
    ).not.toThrow();
  });
});
