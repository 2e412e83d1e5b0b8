import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InMemoryRunStore } from "@needlework/durable";
import { assertStatus, harness } from "../agent-fixtures.js";
import { CheckpointError } from "../../src/agent/approvals/checkpoint-error.js";

// A checkpoint of format 1 as the release before journal-first runs wrote it (see ../fixtures/README.md).
const FIXTURE = readFileSync(new URL("../fixtures/checkpoint-format-1.json", import.meta.url), "utf8");
const SECRET = "format-1-fixture-secret-".repeat(2);
const stored = JSON.parse(FIXTURE) as {
  state: { messages: { role: string; toolCallId?: string; content?: string }[] };
};
const toolText = (callId: string) => stored.state.messages.find((m) => m.toolCallId === callId)?.content;

function agentOver(options: { store?: InMemoryRunStore } = {}) {
  const h = harness();
  const { agent, model } = h.agent([{ text: "The refund of 40 was issued." }], {
    checkpointSecret: SECRET,
    clock: () => Date.parse("2026-11-20T11:00:00.000Z"),
    ...options,
  });
  const keys: Record<string, string> = {};
  h.world.on("lookupOrder", (args, ctx) => ((keys[ctx.callId] = ctx.idempotencyKey), { ok: true, ...args }));
  h.world.on("refund", (args, ctx) => ((keys[ctx.callId] = ctx.idempotencyKey), { refunded: args.amount }));
  return { h, agent, model, keys };
}

describe("a stored checkpoint of format 1 (a state snapshot)", () => {
  it("resumes after it is read as its journal: the recorded call does not run again, the paused round runs", async () => {
    const { h, agent, model, keys } = agentOver();
    const result = await agent.resume(FIXTURE, { call_2_2: "approved" });
    assertStatus(result, "completed");
    expect(result).toMatchObject({ runId: "run-format-1", text: "The refund of 40 was issued.", iterations: 3 });
    // Turn 1's lookup settled before the pause: answered from the checkpoint, not run again.
    expect(h.world.log.map((e) => [e.tool, e.callId])).toEqual([
      ["lookupOrder", "call_2_1"],
      ["refund", "call_2_2"],
    ]);
    // The keys format 1 gave: the repeated lookup keeps its first call's, as the state recorded it.
    expect(keys).toEqual({ call_2_1: "run-format-1:call_1_1", call_2_2: "run-format-1:call_2_2" });
    // The model reads the conversation as before the pause: the recorded tool message unchanged.
    const asked = model.requests[0]!.messages;
    const reply = asked.find((m) => m.role === "tool" && m.toolCallId === "call_1_1");
    expect(reply && "content" in reply ? reply.content : undefined).toBe(toolText("call_1_1"));
    expect(asked.slice(0, 2)).toMatchObject([
      { role: "system", content: "You are a test agent." },
      { role: "user", content: "Refund order o1" },
    ]);
    expect(result.calls.map((c) => [c.callId, c.status])).toEqual([
      ["call_1_1", "ok"],
      ["call_2_1", "ok"],
      ["call_2_2", "ok"],
    ]);
  });

  it("resumes once: a second resume of the same checkpoint is refused and runs nothing", async () => {
    const { h, agent } = agentOver();
    await agent.resume(FIXTURE, { call_2_2: "approved" });
    const again = await agent.resume(FIXTURE, { call_2_2: "approved" }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(CheckpointError);
    expect((again as CheckpointError).code).toBe("CHECKPOINT_ALREADY_RESUMED");
    expect(h.world.log).toHaveLength(2);
  });

  it("resumes over a store that never saw the run: the store's journal holds it with the recorded keys", async () => {
    const store = new InMemoryRunStore();
    const { h, agent } = agentOver({ store });
    const result = await agent.resume(FIXTURE, { call_2_2: "denied" });
    assertStatus(result, "completed_with_failures");
    expect(h.world.callsOf("refund")).toEqual([]);
    const run = await store.journal.read("run-format-1");
    expect(run?.turns).toHaveLength(3);
    // In the order they started: the decision entry's call (denied) first.
    expect(run?.calls.map((c) => [c.callId, c.idempotencyKey, c.outcome?.outcome.status])).toEqual([
      ["call_1_1", "run-format-1:call_1_1", "ok"],
      ["call_2_2", "run-format-1:call_2_2", "skipped"],
      ["call_2_1", "run-format-1:call_1_1", "ok"],
    ]);
  });

  it("is still signed: an altered format-1 checkpoint is refused before anything runs", async () => {
    const { h, agent } = agentOver();
    const altered = FIXTURE.replace('"amount": 40', '"amount": 4000');
    expect(altered).not.toBe(FIXTURE);
    const error = await agent.resume(altered, { call_2_2: "approved" }).catch((e: unknown) => e);
    expect((error as CheckpointError).code).toBe("CHECKPOINT_SIGNATURE_MISMATCH");
    expect(h.world.log).toEqual([]);
  });
});
