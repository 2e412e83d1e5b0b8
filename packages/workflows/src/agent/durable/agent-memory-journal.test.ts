import { type ChatClient, type ChatRequest, ScriptedChatClient, type ScriptedStep } from "@needlework/core";
import { InMemoryRunStore } from "@needlework/durable";
import { describe, expect, it } from "vitest";
import { checkpointOf, harness } from "../../../test/agent-fixtures.js";
import { agentMemoryJournal, createAgent } from "../agent.js";
import { CheckpointError } from "../approvals/checkpoint-error.js";
import { FileResumedCheckpointStore, InMemoryResumedCheckpointStore } from "../approvals/claims.js";

// An agent without a `store` keeps one journal in memory that all its runs write to: a checkpoint
// resumes once in this process by the same journal path as with a store, and the journal holds only
// what that needs (a run that ends is forgotten; a paused one until its checkpoint expires).

const SECRET = "a-checkpoint-secret-of-32-bytes!";
const refund = { toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 5 } }] };

/** A model that pauses a run asked "refund" (a gated call) and answers any other at once. */
const model: ChatClient = {
  complete(request: ChatRequest) {
    const asked = request.messages.find((m) => m.role === "user")?.content;
    const answered = request.messages.some((m) => m.role === "tool");
    const step: ScriptedStep = asked === "refund" && !answered ? refund : { text: "done" };
    return new ScriptedChatClient([step]).complete(request);
  },
};

function storeless(h: ReturnType<typeof harness>, clock: () => number, checkpointMaxAgeMs = 60_000) {
  return createAgent(
    { invoker: h.invoker },
    { name: "support", instructions: "", chatClient: model, checkpointSecret: SECRET, checkpointMaxAgeMs, clock },
  );
}

const refused = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CheckpointError);
  expect((error as CheckpointError).code).toBe(code);
};

describe("the journal in memory of an agent without a store", () => {
  it("stays bounded over 10,000 short runs and pauses: ended runs are dropped, paused ones once expired", async () => {
    const h = harness();
    let now = Date.parse("2026-01-01T00:00:00Z");
    // Checkpoints valid for 1 s of the fake clock, which moves 10 ms a run: about 100 runs' worth.
    const agent = storeless(h, () => now, 1_000);
    const journal = agentMemoryJournal(agent)!;
    let largest = 0;
    let resumed = 0;
    for (let i = 0; i < 10_000; i++) {
      now += 10;
      if (i % 2 === 0) {
        expect((await agent.run("hello")).status).toBe("completed");
      } else {
        const checkpoint = checkpointOf(await agent.run("refund"));
        // Every other pause is resumed (at once); the rest are left to expire.
        if (i % 4 === 1) {
          expect((await agent.resume(checkpoint, { [checkpoint.pending[0]!.callId]: "approved" })).status).toBe(
            "completed",
          );
          resumed++;
        }
      }
      largest = Math.max(largest, journal.size);
    }
    expect(resumed).toBe(2_500);
    expect(h.world.callsOf("refund")).toHaveLength(2_500);
    // 5,000 pauses were made; at any time only those of the last second (50) are needed, and those
    // of the grace after it (as long again as the validity, when under a minute): the journal holds
    // those and not one ended run (a full sweep would start at 128 held).
    expect(largest).toBeGreaterThanOrEqual(100);
    expect(largest).toBeLessThanOrEqual(128);
    // Once every checkpoint expired (and its grace), one more run sweeps them all out.
    now += 2_001;
    for (let i = 0; i < 200; i++) await agent.run("hello");
    expect(journal.size).toBe(0);
  }, 60_000);

  it("resumes a checkpoint made by another process once in this one; a second resume is refused", async () => {
    const h = harness();
    const clock = () => Date.now();
    const checkpoint = checkpointOf(await storeless(h, clock).run("refund"));
    const here = storeless(h, clock);
    const decisions = { [checkpoint.pending[0]!.callId]: "approved" } as const;
    // Concurrent: one holds the run while the other asks; later: the run ended.
    const both = await Promise.allSettled([here.resume(checkpoint, decisions), here.resume(checkpoint, decisions)]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    await refused(here.resume(JSON.stringify(checkpoint), decisions), "CHECKPOINT_ALREADY_RESUMED");
    expect(h.world.callsOf("refund")).toHaveLength(1);
    // Kept until the checkpoint expires: the run's start, its decision entry and its end, no more.
    const kept = await agentMemoryJournal(here)!.read(checkpoint.runId);
    expect(kept).toMatchObject({ turns: [], end: { status: "completed", result: null } });
    expect(kept!.calls.map((c) => [c.tool, c.approval?.decision, c.outcome])).toEqual([
      ["refund", "approved", undefined],
    ]);
  });

  it("forgets a paused run a grace after its checkpoint expired, and the expired checkpoint is refused", async () => {
    const h = harness();
    let now = Date.parse("2026-01-01T00:00:00Z");
    const agent = storeless(h, () => now, 1_000);
    const checkpoint = checkpointOf(await agent.run("refund"));
    const journal = agentMemoryJournal(agent)!;
    const decisions = { [checkpoint.pending[0]!.callId]: "approved" } as const;
    expect(journal.size).toBe(1);
    // Expired, and refused as such; still held for the grace (as long again as the validity here), so
    // a resume that passed its expiry check an instant before would still find its pause decided.
    now += 1_001;
    for (let i = 0; i < 64; i++) await agent.run("hello");
    await refused(agent.resume(checkpoint, decisions), "CHECKPOINT_EXPIRED");
    expect(journal.size).toBe(1);
    now += 1_000;
    for (let i = 0; i < 64; i++) await agent.run("hello");
    expect(journal.size).toBe(0);
    await refused(agent.resume(checkpoint, decisions), "CHECKPOINT_EXPIRED");
    expect(h.world.callsOf("refund")).toHaveLength(0);
  });

  it("a run id is free again once its run ended (nothing of it is kept)", async () => {
    const h = harness();
    const agent = storeless(h, Date.now);
    await agent.run("hello", { runId: "same" });
    expect((await agent.run("hello", { runId: "same" })).status).toBe("completed");
    expect(agentMemoryJournal(agent)!.size).toBe(0);
  });
});

describe("resumedCheckpoints (deprecated): the claim store retires", () => {
  it("without a store, createAgent refuses it and names the replacement", () => {
    const h = harness();
    for (const claims of [new InMemoryResumedCheckpointStore(), new FileResumedCheckpointStore("/unused")]) {
      expect(() =>
        createAgent(
          { invoker: h.invoker },
          { name: "support", instructions: "", chatClient: model, resumedCheckpoints: claims },
        ),
      ).toThrow(
        expect.objectContaining({
          name: "TypeError",
          message: expect.stringMatching(/resumedCheckpoints.*store: new FileRunStore\(dir\).*PostgresStore/s),
        }),
      );
    }
  });

  it("with a store, it is ignored: the journal alone says whether a pause was decided", async () => {
    const h = harness();
    let asked = 0;
    const store = new InMemoryRunStore();
    const agent = createAgent(
      { invoker: h.invoker },
      {
        name: "support",
        instructions: "",
        chatClient: model,
        checkpointSecret: SECRET,
        store,
        // A claim store that would refuse every resume: it is never asked.
        resumedCheckpoints: { claim: async () => (asked++, false) },
      },
    );
    const checkpoint = checkpointOf(await agent.run("refund"));
    const decisions = { [checkpoint.pending[0]!.callId]: "approved" } as const;
    expect((await agent.resume(checkpoint, decisions)).status).toBe("completed");
    await refused(agent.resume(checkpoint, decisions), "CHECKPOINT_ALREADY_RESUMED");
    expect(asked).toBe(0);
    expect(h.world.callsOf("refund")).toHaveLength(1);
  });
});
