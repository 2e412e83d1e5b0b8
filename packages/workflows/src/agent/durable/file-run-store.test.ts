import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { NeedleworkError } from "@needlework/core";
import { AgentHookError } from "../hooks.js";
import { InMemoryRunStore } from "@needlework/durable";
import { RunStoreError } from "@needlework/durable";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { randomBytes } from "node:crypto";
import { FileRunJournal, FileRunStore } from "@needlework/durable";
import { aesGcmCodec } from "@needlework/durable";
import { contentionContract } from "../../../test/contention-contract.js";
import { FakeCrm, resumeAgent, resumeContract } from "../../../test/resume-contract.js";
import type { RunJournal } from "@needlework/durable";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "needlework-runs-"));
  dirs.push(dir);
  return dir;
}

describe("FileRunStore", () => {
  // Two store instances over one directory: a restarted process sees what the dead one wrote.
  resumeContract(async () => {
    const directory = await tempDir();
    return { first: new FileRunStore(directory), second: new FileRunStore(directory) };
  });
  describe("with a codec", () => {
    const codec = aesGcmCodec(randomBytes(32));
    resumeContract(async () => {
      const directory = await tempDir();
      return { first: new FileRunStore(directory, { codec }), second: new FileRunStore(directory, { codec }) };
    });
  });
  contentionContract(async (leaseMs) => {
    const directory = await tempDir();
    const options = leaseMs === undefined ? {} : { leaseMs };
    return { first: new FileRunStore(directory, options), second: new FileRunStore(directory, options) };
  });

  it("a run of one round is two appends (two fsyncs): start, turn and call starts; outcomes, answer and end", async () => {
    const dir = await tempDir();
    const store = new FileRunStore(dir);
    const writes: string[] = [];
    // Every journal method the run calls, by name (a Proxy keeps the class's own methods).
    const journal = new Proxy(store.journal, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== "function" || key === "read" || key === "leaseMs") return value;
        return (...args: unknown[]) => {
          writes.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as RunJournal;
    // Timers held: no record waits out the commit window, however loaded the machine is.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    try {
      const round = {
        toolCalls: [
          { name: "lookupContact", arguments: { id: "c1" } },
          { name: "upsertContact", arguments: { id: "c1" } },
        ],
      };
      const { agent } = resumeAgent(new FakeCrm(), { ...store, journal }, [round, { text: "Synced." }]);
      const result = await agent.run("Sync c1.", { runId: "run_two_appends" });
      expect(result.text).toBe("Synced.");
    } finally {
      vi.useRealTimers();
    }
    expect(writes).toEqual(["commit", "commit"]);
    const lines = (await readFile(join(dir, "runs", "run_two_appends.jsonl"), "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(lines).toEqual(["start", "turn", "call", "outcome", "outcome", "turn", "end"]);
    const run = await store.journal.read("run_two_appends");
    expect(run?.end?.status).toBe("completed");
    expect(run?.calls.every((c) => c.outcome?.outcome.status === "ok")).toBe(true);
  });

  it("ignores a torn last line and keeps appending after it", async () => {
    const dir = await tempDir();
    const journal = new FileRunJournal(dir);
    expect(
      await journal.runStarted(
        {
          runId: "r1",
          agent: "a",
          instructions: "",
          input: "hi",
          startedAt: "2026-01-01T00:00:00.000Z",
        },
        "owner-1",
      ),
    ).toBe(true);
    expect(
      await journal.runStarted(
        {
          runId: "r1",
          agent: "a",
          instructions: "",
          input: "hi",
          startedAt: "2026-01-01T00:00:00.000Z",
        },
        "owner-2",
      ),
    ).toBe(false);
    await appendFile(join(dir, "r1.jsonl"), '{"kind":"turn","tu');
    await journal.turn("r1", { index: 0, message: { role: "assistant", content: "hello" } }, "owner-1");
    const run = await journal.read("r1");
    expect(run?.turns).toEqual([{ index: 0, message: { role: "assistant", content: "hello" } }]);
  });

  it("reads its options from their own properties: a polluted Object.prototype supplies no leaseMs or codec", async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto["leaseMs"] = 1;
    proto["codec"] = { encode: () => "forged", decode: () => "forged" };
    try {
      const directory = await tempDir();
      const store = new FileRunStore(directory);
      expect(store.journal.leaseMs).toBe(30_000);
      expect(new FileRunJournal(directory).leaseMs).toBe(30_000);
      expect(new InMemoryRunStore().journal.leaseMs).toBe(30_000);
      await store.journal.runStarted(
        { runId: "r_proto", agent: "a", instructions: "", input: "hi", startedAt: new Date().toISOString() },
        "w1",
      );
      expect(await readFile(join(directory, "runs", "r_proto.jsonl"), "utf8")).toContain('"input":"hi"');
    } finally {
      delete proto["leaseMs"];
      delete proto["codec"];
    }
  });

  it("RunStoreError.isInstance is exact: another needlework error, or one named like it, is not one", () => {
    expect(RunStoreError.isInstance(new RunStoreError("RUN_BUSY", "x"))).toBe(true);
    expect(RunStoreError.isInstance(new NeedleworkError("RUN_BUSY", "secret"))).toBe(false);
    expect(
      RunStoreError.isInstance(new AgentHookError("onToolCall", { agent: "a", runId: "r", iteration: 0 }, "s")),
    ).toBe(false);
    const named = Object.assign(new NeedleworkError("RUN_BUSY", "secret"), { name: "RunStoreError" });
    expect(RunStoreError.isInstance(named)).toBe(false);
  });

  it("refuses a run id that is not a safe file name", async () => {
    const journal = new FileRunJournal(await tempDir());
    await expect(journal.read("../etc/passwd")).rejects.toMatchObject({ code: "INVALID_RUN_ID" });
  });
});
