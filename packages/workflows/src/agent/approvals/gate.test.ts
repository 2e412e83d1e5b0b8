import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "@needlework/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertStatus, checkpointOf, harness, toolReply } from "../../../test/agent-fixtures.js";
import { createAgent } from "../agent.js";
import type { AgentCheckpoint } from "./checkpoint.js";
import { CheckpointError } from "./checkpoint-error.js";
import { FileResumedCheckpointStore, InMemoryResumedCheckpointStore } from "./claims.js";
import { FileRunStore, InMemoryRunStore } from "@needlework/durable";
import { ScriptedChatClient } from "@needlework/core";

const S3CRET = "s3cret-".repeat(5);
const refundRound = {
  toolCalls: [
    { name: "lookupOrder", arguments: { orderId: "o1" } },
    { name: "refund", arguments: { orderId: "o1", amount: 40 } },
  ],
};

async function paused(options: Parameters<ReturnType<typeof harness>["agent"]>[1] = {}) {
  const h = harness();
  const { agent, model } = h.agent([refundRound, { text: "The refund of 40 was issued." }, { text: "extra" }], options);
  const result = await agent.run("Refund order o1", { runId: "run-a" });
  return { h, agent, model, result, checkpoint: checkpointOf(result) };
}

const refused = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CheckpointError);
  expect((error as CheckpointError).code).toBe(code);
  return error as CheckpointError;
};

describe("approvals", () => {
  it("pauses before any call of the round runs and returns a signed, JSON-serializable checkpoint", async () => {
    const { h, result, checkpoint } = await paused();
    assertStatus(result, "awaiting_approval");
    expect(h.world.log).toEqual([]);
    expect(result.pendingApprovals).toEqual([
      { callId: "call_1_2", tool: "refund", arguments: { orderId: "o1", amount: 40 }, requiresApproval: true },
    ]);
    expect(checkpoint.pending.map((p) => [p.callId, p.requiresApproval])).toEqual([
      ["call_1_1", false],
      ["call_1_2", true],
    ]);
    expect(checkpoint).toMatchObject({
      version: 2,
      agent: "test-agent",
      runId: "run-a",
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The checkpoint is the run's journal: its start and its one recorded turn (no call ran).
    expect(checkpoint.journal).toMatchObject({
      runId: "run-a",
      agent: "test-agent",
      input: "Refund order o1",
      calls: [],
    });
    expect(checkpoint.journal.turns.map((t) => t.message.toolCalls?.map((c) => c.name))).toEqual([
      ["lookupOrder", "refund"],
    ]);
    expect(JSON.parse(JSON.stringify(checkpoint))).toEqual(checkpoint);
  });

  it("on approval runs the approved and ungated calls, then continues the loop", async () => {
    const { h, agent, model, checkpoint } = await paused();
    const result = await agent.resume(checkpoint, { call_1_2: "approved" });
    expect(h.world.log.map((e) => e.tool)).toEqual(["lookupOrder", "refund"]);
    expect(result).toMatchObject({
      status: "completed",
      runId: "run-a",
      text: "The refund of 40 was issued.",
      iterations: 2,
    });
    expect(model.requests[1]!.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("answers a denied call with APPROVAL_DENIED without running it", async () => {
    const { h, agent, checkpoint } = await paused();
    const result = await agent.resume(checkpoint, { call_1_2: "denied" });
    expect(h.world.callsOf("refund")).toEqual([]);
    expect(h.world.callsOf("lookupOrder")).toHaveLength(1);
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({
      status: "skipped",
      error_code: "APPROVAL_DENIED",
      message: expect.stringContaining("Not called"),
    });
    expect(result.calls.find((c) => c.callId === "call_1_2")).toMatchObject({
      status: "skipped",
      errorCode: "APPROVAL_DENIED",
      notCalled: true,
    });
  });

  it("journals a denied call's APPROVAL_DENIED outcome, as the run's store and the inspector show it", async () => {
    const store = new InMemoryRunStore();
    const { agent, checkpoint } = await paused({ store });
    await agent.resume(checkpoint, { call_1_2: "denied" });
    const journaled = await store.journal.read("run-a");
    expect(journaled?.calls.find((c) => c.callId === "call_1_2")?.outcome?.outcome).toMatchObject({
      status: "skipped",
      errorCode: "APPROVAL_DENIED",
    });
    expect(journaled?.end?.status).toBe("completed_with_failures");
  });

  it("gates calls through approvalPolicy and resumes them under the round's policy", async () => {
    const h = harness();
    h.world.on("debit", ({ account }) => {
      if (account === "x") throw new ToolError("no", { code: "NO" });
      return { ok: true, account, amount: 1 };
    });
    const { agent } = h.agent(
      [
        {
          toolCalls: [
            { name: "debit", arguments: { account: "big", amount: 5000 } },
            { name: "credit", arguments: { account: "b", amount: 5000 } },
          ],
        },
        { text: "The transfer was not approved; nothing changed." },
      ],
      { approvalPolicy: ({ tool, arguments: args }) => tool === "debit" && (args as { amount: number }).amount > 1000 },
    );
    const first = await agent.run("transfer");
    assertStatus(first, "awaiting_approval");
    expect(first.pendingApprovals.map((p) => p.tool)).toEqual(["debit"]);
    const result = await agent.resume(first.checkpoint, { call_1_1: "denied" });
    // all-or-nothing: the denial fails the round, so the ungated credit never starts.
    expect(h.world.log).toEqual([]);
    expect(result.calls.map((c) => c.errorCode)).toEqual(["APPROVAL_DENIED", "SKIPPED_SIBLING_FAILED"]);
  });

  it("any agent with the same checkpointSecret resumes the checkpoint, as after a restart", async () => {
    const { h, checkpoint } = await paused({ checkpointSecret: S3CRET });
    const stored = JSON.stringify(checkpoint);
    const restarted = createAgent(
      { invoker: h.invoker },
      {
        name: "test-agent",
        instructions: "",
        chatClient: new ScriptedChatClient([{ text: "Refunded." }]),
        checkpointSecret: S3CRET,
      },
    );
    const result = await restarted.resume(stored, { call_1_2: "approved" });
    expect(result.status).toBe("completed");
    expect(h.world.callsOf("refund")).toHaveLength(1);
  });

  it("refuses a checkpoint signed with another key (or the random key of another instance)", async () => {
    const { h, checkpoint } = await paused();
    const other = createAgent(
      { invoker: h.invoker },
      { name: "test-agent", instructions: "", chatClient: new ScriptedChatClient([]) },
    );
    const error = await refused(other.resume(checkpoint, { call_1_2: "approved" }), "CHECKPOINT_SIGNATURE_MISMATCH");
    expect(error.message).toMatch(/altered, or signed by an agent with another key/);
    const wrongSecret = createAgent(
      { invoker: h.invoker },
      {
        name: "test-agent",
        instructions: "",
        chatClient: new ScriptedChatClient([]),
        checkpointSecret: "nope".repeat(8),
      },
    );
    await refused(wrongSecret.resume(checkpoint, { call_1_2: "approved" }), "CHECKPOINT_SIGNATURE_MISMATCH");
    expect(h.world.log).toEqual([]);
  });

  it("refuses an altered checkpoint and runs nothing", async () => {
    const { h, agent, checkpoint } = await paused();
    const altered = JSON.parse(JSON.stringify(checkpoint)) as { pending: { arguments: { amount: number } }[] };
    altered.pending[1]!.arguments.amount = 4000;
    await refused(
      agent.resume(altered as unknown as AgentCheckpoint, { call_1_2: "approved" }),
      "CHECKPOINT_SIGNATURE_MISMATCH",
    );
    await refused(agent.resume("{not json", { call_1_2: "approved" }), "CHECKPOINT_INVALID");
    await refused(agent.resume({ ...checkpoint, signature: "x" }, { call_1_2: "approved" }), "CHECKPOINT_INVALID");
    expect(h.world.log).toEqual([]);
  });

  it("resumes a checkpoint once: a second resume, even concurrent, is refused and runs nothing again", async () => {
    const { h, agent, checkpoint } = await paused();
    const [a, b] = await Promise.allSettled([
      agent.resume(checkpoint, { call_1_2: "approved" }),
      agent.resume(checkpoint, { call_1_2: "approved" }),
    ]);
    expect([a.status, b.status].sort()).toEqual(["fulfilled", "rejected"]);
    await refused(agent.resume(checkpoint, { call_1_2: "approved" }), "CHECKPOINT_ALREADY_RESUMED");
    expect(h.world.callsOf("refund")).toHaveLength(1);
  });

  it("refuses decisions that do not match, leaving the checkpoint resumable", async () => {
    const { agent, checkpoint } = await paused();
    await refused(agent.resume(checkpoint, {}), "CHECKPOINT_DECISIONS_INVALID");
    const error = await refused(
      agent.resume(checkpoint, { call_1_2: "approved", call_1_1: "approved" }),
      "CHECKPOINT_DECISIONS_INVALID",
    );
    expect(error.message).toContain("call_1_1 is not a call awaiting approval");
    await refused(agent.resume(checkpoint, { call_1_2: "yes" as "approved" }), "CHECKPOINT_DECISIONS_INVALID");
    expect((await agent.resume(checkpoint, { call_1_2: "approved" })).status).toBe("completed");
  });

  it("keeps the run's state across the pause: turns count toward maxIterations", async () => {
    const { agent, checkpoint } = await paused({ maxIterations: 1 });
    const result = await agent.resume(checkpoint, { call_1_2: "approved" });
    expect(result).toMatchObject({ status: "max_iterations", iterations: 1 });
  });
});

describe("resumed-checkpoint stores", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "nw-resumed-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the in-memory store claims an id once", async () => {
    const store = new InMemoryResumedCheckpointStore();
    expect(await store.claim("a")).toBe(true);
    expect(await store.claim("a")).toBe(false);
  });

  it("the file store claims an id once across instances (processes) and concurrent claims", async () => {
    const results = await Promise.all([
      new FileResumedCheckpointStore(dir).claim("abc"),
      new FileResumedCheckpointStore(dir).claim("abc"),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await new FileResumedCheckpointStore(join(dir, "x")).claim("abc")).toBe(true);
    await expect(new FileResumedCheckpointStore(dir).claim("../etc/passwd")).rejects.toThrow(TypeError);
  });

  it("stops a second process from resuming: two agents sharing the secret and a file run store", async () => {
    const { h, checkpoint } = await paused({ checkpointSecret: "k".repeat(32) });
    // Each agent its own store over the one directory (two processes): its run journal says the pause was decided.
    const make = () =>
      createAgent(
        { invoker: h.invoker },
        {
          name: "test-agent",
          instructions: "",
          chatClient: new ScriptedChatClient([{ text: "ok" }]),
          checkpointSecret: "k".repeat(32),
          store: new FileRunStore(dir),
        },
      );
    await make().resume(checkpoint, { call_1_2: "approved" });
    await refused(make().resume(checkpoint, { call_1_2: "approved" }), "CHECKPOINT_ALREADY_RESUMED");
    expect(h.world.callsOf("refund")).toHaveLength(1);
  });

  it("two agents over one shared store: the second resume of a checkpoint is refused and the call's body ran once", async () => {
    const store = new InMemoryRunStore();
    const h = harness();
    const secret = "k".repeat(32);
    const make = (steps: ConstructorParameters<typeof ScriptedChatClient>[0]) =>
      createAgent(
        { invoker: h.invoker },
        {
          name: "test-agent",
          instructions: "",
          chatClient: new ScriptedChatClient(steps),
          checkpointSecret: secret,
          store,
        },
      );
    const checkpoint = checkpointOf(await make([refundRound]).run("Refund o1", { runId: "shared-1" }));
    // Concurrent: one of them holds the run while the other asks.
    const both = await Promise.allSettled([
      make([{ text: "ok" }]).resume(checkpoint, { call_1_2: "approved" }),
      make([{ text: "ok" }]).resume(checkpoint, { call_1_2: "approved" }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const failure = both.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(failure.reason).toBeInstanceOf(CheckpointError);
    expect((failure.reason as CheckpointError).code).toBe("CHECKPOINT_ALREADY_RESUMED");
    // And later, after the first ended.
    await refused(make([{ text: "ok" }]).resume(checkpoint, { call_1_2: "approved" }), "CHECKPOINT_ALREADY_RESUMED");
    expect(h.world.callsOf("refund")).toHaveLength(1);
    expect(h.world.callsOf("lookupOrder")).toHaveLength(1);
  });

  it("a resumed pause replays its journal: recorded turns are not asked again and calls that ran do not run again", async () => {
    const h = harness();
    const steps = [
      { toolCalls: [{ name: "lookupOrder", arguments: { orderId: "o1" } }] },
      { toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 40 } }] },
      { text: "Refunded." },
    ];
    const { agent, model } = h.agent(steps);
    const checkpoint = checkpointOf(await agent.run("Refund order o1", { runId: "replayed-1" }));
    expect(model.requests).toHaveLength(2);
    expect(h.world.callsOf("lookupOrder")).toHaveLength(1);
    expect(checkpoint.journal.turns).toHaveLength(2);
    expect(checkpoint.journal.calls.map((c) => [c.tool, c.outcome?.outcome.status])).toEqual([["lookupOrder", "ok"]]);

    const result = await agent.resume(checkpoint, { [checkpoint.pending[0]!.callId]: "approved" });
    assertStatus(result, "completed");
    // Only the turn after the pause went to the model; lookupOrder's body did not run again.
    expect(model.requests).toHaveLength(3);
    expect(h.world.callsOf("lookupOrder")).toHaveLength(1);
    expect(h.world.callsOf("refund")).toHaveLength(1);
    expect(result.calls.map((c) => [c.tool, c.status])).toEqual([
      ["lookupOrder", "ok"],
      ["refund", "ok"],
    ]);
    expect(model.requests[2]!.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });
});
