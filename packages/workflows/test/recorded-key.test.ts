// The idempotency key is a recorded fact: assigned once when a round's calls are formed (a repeat of
// the same tool with the same arguments keeps the first call's key, in one round and across rounds),
// then read everywhere: the tool's context, the envelope the model reads, the journal's call start
// and outcome, and a resumed run's in-flight call.
import { aesGcmCodec, FileRunStore, InMemoryRunStore, type AgentStore } from "@needlework/durable";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedStep } from "@needlework/core";
import { harness, toolReply } from "./agent-fixtures.js";

const update = { name: "updateContact", arguments: { contactId: "c1", email: "a@x.example" } };
const other = { name: "updateContact", arguments: { contactId: "c2", email: "b@x.example" } };
const script: ScriptedStep[] = [{ toolCalls: [update, update] }, { toolCalls: [update, other] }, { text: "Done." }];

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

const stores: [string, () => Promise<AgentStore>][] = [
  ["InMemoryRunStore", async () => new InMemoryRunStore()],
  [
    "FileRunStore with aesGcmCodec (keys sealed)",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "needlework-keys-"));
      directories.push(directory);
      return new FileRunStore(directory, { codec: aesGcmCodec(randomBytes(32)) });
    },
  ],
];

describe.each(stores)("the idempotency key, recorded once: %s", (_name, open) => {
  it("two identical calls in one round and a third in the next share the first call's key, end to end", async () => {
    const store = await open();
    const h = harness();
    const seen: [string, string][] = [];
    h.world.on("updateContact", (args, ctx) => {
      seen.push([ctx.callId, ctx.idempotencyKey]);
      return { contactId: args["contactId"], updated: true };
    });
    const { agent } = h.agent(script, { store });
    const result = await agent.run("Update c1 and c2.", { runId: "run-k" });
    expect(result.status).toBe("completed");
    const first = "run-k:call_1_1";
    const expected: [string, string][] = [
      ["call_1_1", first],
      ["call_1_2", first],
      ["call_2_1", first],
      ["call_2_2", "run-k:call_2_2"],
    ];
    // The tool's context.
    expect(seen).toEqual(expected);
    // The envelope the model read.
    for (const [callId, key] of expected)
      expect(toolReply(result.messages, callId)["metadata"]).toMatchObject({ idempotency_key: key });
    // The journal: each call's start and outcome (sealed on disk, read back as recorded).
    const run = await store.journal.read("run-k");
    const journaled = new Map(run!.calls.map((c) => [c.callId, c]));
    for (const [callId, key] of expected) {
      expect(journaled.get(callId)?.idempotencyKey).toBe(key);
      expect(journaled.get(callId)?.outcome?.idempotencyKey).toBe(key);
    }
  });

  it("a repeated call in flight at a crash is resumed with its recorded key, never its own id's", async () => {
    const store = await open();
    const h = harness();
    let hang = true;
    const controller = new AbortController();
    // The first round settles; the second round's repeat hangs until the run is aborted (the crash).
    let calls = 0;
    h.world.on("updateContact", () => {
      calls += 1;
      if (calls <= 2) return { updated: true };
      return hang ? new Promise(() => setTimeout(() => controller.abort(new Error("crash")), 10)) : { updated: true };
    });
    const { agent } = h.agent(script.slice(0, 2), { store });
    await expect(agent.run("Update c1 and c2.", { runId: "run-crash", signal: controller.signal })).rejects.toThrow();
    hang = false;
    const { agent: again } = h.agent([{ text: "Checked: c1 may have been updated." }], { store });
    const resumed = await again.resumeRun("run-crash");
    const repeat = resumed.calls.find((c) => c.callId === "call_2_1");
    expect(repeat?.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(toolReply(resumed.messages, "call_2_1")["metadata"]).toMatchObject({
      idempotency_key: "run-crash:call_1_1",
    });
    const run = await store.journal.read("run-crash");
    const journaled = run!.calls.find((c) => c.callId === "call_2_1");
    expect(journaled?.idempotencyKey).toBe("run-crash:call_1_1");
    expect(journaled?.outcome?.idempotencyKey).toBe("run-crash:call_1_1");
  });
});
