// An operator's cancel as the loop meets it: the call in flight is aborted through its signal and
// answered CANCELLED, the round's call not started yet SKIPPED_RUN_CANCELLED, both journaled; the model
// is not asked again; the run ends `cancelled`. A caller's own abort still rejects the run (no end).
import "reflect-metadata";
import { defineTool, ScriptedChatClient } from "@needlework/core";
import { InMemoryRunStore } from "@needlework/durable";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../../index.js";

function blockedAgent(store: InMemoryRunStore) {
  let onStarted!: () => void;
  const started = new Promise<void>((resolve) => (onStarted = resolve));
  const reasons: unknown[] = [];
  let ran = 0;
  const step = defineTool({
    name: "step",
    description: "One step of a migration.",
    input: z.object({ n: z.number().describe("The step.") }),
    execute: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ran++;
        ctx.signal.addEventListener("abort", () => {
          reasons.push(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
        onStarted();
      }),
  });
  const chatClient = new ScriptedChatClient([
    {
      toolCalls: [
        { id: "s1", name: "step", arguments: { n: 1 } },
        { id: "s2", name: "step", arguments: { n: 2 } },
      ],
    },
    { text: "Migrated." },
  ]);
  const agent = usingAgentFramework(container.createChildContainer())
    .addTools(step)
    .usingToolResultMiddleware()
    .buildAgentFactory()
    .createAgent({ name: "migrate", instructions: "Migrate.", chatClient, store, maxConcurrency: 1 });
  return { agent, started, reasons, ran: () => ran, chatClient };
}

describe("a cancelled run", () => {
  it("aborts the call in flight (CANCELLED), skips the one not started, journals both, ends cancelled", async () => {
    const store = new InMemoryRunStore({ leaseMs: 60 });
    const { agent, started, reasons, ran } = blockedAgent(store);
    const result = agent.run("Migrate.", { runId: "mig_1" });
    await started;
    await store.journal.requestCancel("mig_1", { by: "Ada", at: "2026-01-01T00:00:00.000Z" });
    const ended = await result;
    expect(ended.status).toBe("cancelled");
    expect(ended.status === "cancelled" && ended.reason).toBe("cancelled by Ada at 2026-01-01T00:00:00.000Z");
    expect(ended.calls.map((c) => [c.callId, c.status, c.errorCode, c.notCalled])).toEqual([
      ["s1", "cancelled", "CANCELLED", false],
      ["s2", "skipped", "SKIPPED_RUN_CANCELLED", true],
    ]);
    expect(ended.iterations).toBe(1); // the model was not asked again
    expect(ran()).toBe(1);
    expect(reasons).toEqual([expect.objectContaining({ name: "AbortError" })]);
    const journaled = await store.journal.read("mig_1");
    expect(journaled?.end?.status).toBe("cancelled");
    expect(journaled?.calls.map((c) => c.outcome?.outcome.errorCode)).toEqual(["CANCELLED", "SKIPPED_RUN_CANCELLED"]);
    // Its stored result reads back as the run's answer.
    expect((await agent.resumeRun("mig_1")).status).toBe("cancelled");
    await expect(
      store.journal.requestCancel("mig_1", { by: "Ada", at: "2026-01-01T00:00:01.000Z" }),
    ).rejects.toMatchObject({ code: "RUN_ENDED" });
  });

  it("a caller's abort still rejects the run, which keeps no end", async () => {
    const store = new InMemoryRunStore({ leaseMs: 60 });
    const { agent, started } = blockedAgent(store);
    const controller = new AbortController();
    const result = agent.run("Migrate.", { runId: "mig_2", signal: controller.signal });
    await started;
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: "AbortError" });
    expect((await store.journal.read("mig_2"))?.end).toBeUndefined();
  });
});
