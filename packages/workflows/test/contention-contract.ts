// Durable runs under contention and hostile data, for every AgentStore (memory, file, PostgreSQL):
// two resumes at once, a late writer whose lease was taken over, values PostgreSQL refuses, values
// nested past the snapshot's depth, and a stored result that was tampered with.
import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import { expect, it } from "vitest";
import type { AgentStore, RunJournal } from "@needlework/durable";
import { FakeCrm, resumeAgent } from "./resume-contract.js";

/** Opens two handles (two processes' worth) on one store whose leases last `leaseMs`. */
export type OpenStores = (leaseMs?: number) => Promise<{ first: AgentStore; second: AgentStore }>;

const syncRound = {
  toolCalls: [
    { name: "upsertContact", arguments: { id: "c1" } },
    { name: "sendEmail", arguments: { to: "c1@example.com" } },
  ],
};

/** Starts a run that hangs in both its tools, then "kills" it: journaled, unfinished, lease released. */
async function crashedRun(store: AgentStore, crm: FakeCrm, runId: string): Promise<void> {
  crm.hang = new Set(["upsertContact", "sendEmail"]);
  const kill = new AbortController();
  const running = resumeAgent(crm, store, [syncRound, { text: "never" }]).agent.run("Sync c1.", {
    signal: kill.signal,
    runId,
  });
  await Promise.all([crm.whenStarted("upsertContact"), crm.whenStarted("sendEmail")]);
  kill.abort(new DOMException("process killed", "AbortError"));
  await expect(running).rejects.toMatchObject({ name: "AbortError" });
  crm.hang.clear();
}

export function contentionContract(open: OpenStores): void {
  it("two resumes of one run at once: one continues, the other gets RUN_BUSY, no effect repeats", async () => {
    const { first, second } = await open();
    const crm = new FakeCrm();
    await crashedRun(first, crm, "run_busy_1");
    const a = resumeAgent(crm, first, [{ text: "Synced." }]).agent;
    const b = resumeAgent(crm, second, [{ text: "Synced." }]).agent;
    const settled = await Promise.allSettled([a.resumeRun("run_busy_1"), b.resumeRun("run_busy_1")]);
    const done = settled.filter((s) => s.status === "fulfilled");
    const refused = settled.filter((s) => s.status === "rejected");
    // Both may succeed only if one finished before the other asked (it then returns the stored result).
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(r.reason).toMatchObject({ code: "RUN_BUSY" });
    // upsertContact: once before the crash, once on resume (idempotent, same key); sendEmail never again.
    expect(crm.count("upsertContact")).toBe(2);
    expect(crm.count("sendEmail")).toBe(1);
    expect((await second.journal.read("run_busy_1"))?.end?.status).toBeDefined();
  });

  it("a late writer whose lease was taken over writes nothing after the new holder's records", async () => {
    const { first, second } = await open(150);
    const crm = new FakeCrm();
    // The first process's lease renewals are lost (a network partition): its lease expires while
    // its model call ignores the abort and runs long.
    const partitioned: AgentStore = { ...first, journal: withoutRenewals(first.journal) };
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const slowModel: ChatClient = {
      async complete(_request: ChatRequest): Promise<ChatResponse> {
        await stuck;
        return { message: { content: "Synced (late)." } };
      },
    };
    const late = resumeAgent(crm, partitioned, [], slowModel).agent.run("Sync c1.", { runId: "run_late_1" });
    // Real time, polled: the lease expires on the store's own clock (PostgreSQL's now() for that
    // store), which no fake timer reaches. A resume is refused (RUN_BUSY) until then.
    const other = resumeAgent(crm, second, [{ text: "Synced by the new holder." }]).agent;
    await expect
      .poll(() => other.resumeRun("run_late_1").catch((e: unknown) => e), { timeout: 10_000, interval: 50 })
      .toMatchObject({ text: "Synced by the new holder." });
    const before = await second.journal.read("run_late_1");
    release();
    await expect(late).rejects.toMatchObject({ code: "RUN_BUSY" });
    const after = await second.journal.read("run_late_1");
    expect(after).toEqual(before);
    expect(after?.end?.result).toMatchObject({ text: "Synced by the new holder." });
  });

  it("a holder stalled past leaseMs never takes the run back: its renewals fail, its outcome and end are refused", async () => {
    const { first, second } = await open(150);
    const crm = new FakeCrm();
    const cut = { on: false, renewals: 0 };
    const stalled: AgentStore = { ...first, journal: partitioned(first.journal, cut) };
    // The stalled process sends the email and is stopped inside the tool body.
    let finishEmail!: () => void;
    const emailSent = new Promise<void>((resolve) => (finishEmail = resolve));
    const emailing: ChatClient = {
      async complete({ messages }) {
        if (messages.some((m) => m.role === "tool")) return { message: { content: "Email sent (stalled worker)." } };
        return {
          message: { toolCalls: [{ id: "call_mail", name: "sendEmail", arguments: { to: "c1@example.com" } }] },
        };
      },
    };
    crm.hang = new Set();
    const original = crm.execute.bind(crm);
    crm.execute = async (tool, args, ctx) => {
      const value = await original(tool, args, ctx);
      if (tool === "sendEmail" && crm.count("sendEmail") === 1) {
        cut.on = true; // the process stops here: nothing it does reaches the store
        await emailSent;
      }
      return value;
    };
    const late = resumeAgent(crm, stalled, [], emailing).agent.run("Email c1.", { runId: "run_stall_1" });
    await crm.whenStarted("sendEmail");
    // Another process resumes once the stalled one's lease expired, and finishes the run.
    const other = resumeAgent(crm, second, [{ text: "The email may not have been sent." }]).agent;
    await expect
      .poll(() => other.resumeRun("run_stall_1").catch((e: unknown) => e), { timeout: 10_000, interval: 50 })
      .toMatchObject({ status: "completed_with_failures" });
    const finished = await second.journal.read("run_stall_1");
    expect(finished?.end?.result).toMatchObject({ text: "The email may not have been sent." });
    // The stalled process wakes up: its renewals reach the store again, and fail.
    const renewalsBefore = cut.renewals;
    cut.on = false;
    await expect.poll(() => cut.renewals, { timeout: 5_000, interval: 20 }).toBeGreaterThan(renewalsBefore);
    finishEmail();
    await expect(late).rejects.toMatchObject({ code: "RUN_BUSY" });
    const after = await second.journal.read("run_stall_1");
    expect(after).toEqual(finished);
    expect(after?.end?.result).toMatchObject({ text: "The email may not have been sent.", runId: "run_stall_1" });
    expect(crm.count("sendEmail")).toBe(1);
    // Resumed again, the run answers the second process's result.
    const again = await resumeAgent(crm, first, []).agent.resumeRun("run_stall_1");
    expect(again.text).toBe("The email may not have been sent.");
  });

  it("a paused run accepts no write, renewal or end from its last holder; a new take opens a new epoch", async () => {
    const { first, second } = await open();
    const start = {
      runId: "run_fence_1",
      agent: "crm-sync",
      instructions: "i",
      input: "x",
      startedAt: new Date().toISOString(),
    };
    expect(await first.journal.runStarted(start, "w1")).toBe(true);
    const turn = { index: 0, message: { role: "assistant" as const, content: "one" } };
    await first.journal.turn("run_fence_1", turn, "w1");
    const end = { status: "awaiting_approval", endedAt: new Date().toISOString(), result: null };
    await first.journal.runEnded("run_fence_1", end, "w1");
    const late = { index: 1, message: { role: "assistant" as const, content: "late" } };
    await expect(first.journal.turn("run_fence_1", late, "w1")).rejects.toMatchObject({ code: "RUN_BUSY" });
    await expect(first.journal.runEnded("run_fence_1", { ...end, status: "stalled" }, "w1")).rejects.toMatchObject({
      code: "RUN_BUSY",
    });
    expect(await first.journal.renew("run_fence_1", "w1")).toBe(false);
    // A continuation (an approval's) takes it anew; the old holder still cannot write.
    expect(await second.journal.lease("run_fence_1", "w2")).toBe(true);
    await expect(first.journal.turn("run_fence_1", late, "w1")).rejects.toMatchObject({ code: "RUN_BUSY" });
    await second.journal.turn("run_fence_1", { index: 1, message: { role: "assistant", content: "two" } }, "w2");
    const run = await first.journal.read("run_fence_1");
    expect(run?.turns.map((t) => t.message.content)).toEqual(["one", "two"]);
    expect(run?.end?.status).toBe("awaiting_approval");
  });

  it("RUN_BUSY says when to try again: retryAfterMs is the time left on the holder's lease", async () => {
    const { first, second } = await open(20_000);
    const start = {
      runId: "run_busy_when",
      agent: "crm-sync",
      instructions: "i",
      input: "x",
      startedAt: new Date().toISOString(),
    };
    expect(await first.journal.runStarted(start, "w1")).toBe(true);
    const refused = await second.journal.lease("run_busy_when", "w2").catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "RUN_BUSY" });
    const { retryAfterMs } = refused as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThan(10_000);
    expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    const byAgent = await resumeAgent(new FakeCrm(), second, [{ text: "x" }])
      .agent.resumeRun("run_busy_when")
      .catch((e: unknown) => e);
    expect(byAgent).toMatchObject({ code: "RUN_BUSY", retryAfterMs: expect.any(Number) });
    expect((byAgent as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(10_000);
    // A write by a take that is not the current one: refused, with the holder's time.
    await expect(
      second.journal.turn("run_busy_when", { index: 0, message: { role: "assistant", content: "x" } }, "w2"),
    ).rejects.toMatchObject({ code: "RUN_BUSY", retryAfterMs: expect.any(Number) });
  });

  it("NUL bytes and lone surrogates in input, arguments and tool data are journaled and read back as written", async () => {
    const { first, second } = await open();
    const crm = new FakeCrm();
    const hostile = "a\u0000b\uD800c\uDC00d\uE000e";
    const steps = [{ toolCalls: [{ name: "upsertContact", arguments: { id: hostile } }] }, { text: `Done ${hostile}` }];
    const result = await resumeAgent(crm, first, steps).agent.run(`Sync ${hostile}.`, { runId: "run_nul_1" });
    expect(result.status).toBe("completed");
    const run = await second.journal.read("run_nul_1");
    expect(run?.input).toBe(`Sync ${hostile}.`);
    expect(run?.calls[0]?.arguments).toEqual({ id: hostile });
    expect(run?.calls[0]?.outcome?.outcome.data).toEqual({ tool: "upsertContact", id: hostile });
    expect(run?.turns[0]?.message.toolCalls?.[0]?.arguments).toEqual({ id: hostile });
    // The finished run resumes to its stored result, as written.
    const stored = await resumeAgent(crm, second, []).agent.resumeRun("run_nul_1");
    expect(stored.text).toBe(`Done ${hostile}`);
  });

  it("arguments nested 100,000 levels deep are journaled as the snapshot's marker, not a crash", async () => {
    const { first } = await open();
    let deep: Record<string, unknown> = { id: "c1" };
    for (let i = 0; i < 100_000; i++) deep = { nested: deep };
    const steps = [{ toolCalls: [{ name: "upsertContact", arguments: deep }] }, { text: "Could not sync." }];
    const result = await resumeAgent(new FakeCrm(), first, steps).agent.run("Sync.", { runId: "run_deep_1" });
    expect(result.calls[0]?.errorCode).toBe("INVALID_ARGUMENTS");
    const run = await first.journal.read("run_deep_1");
    expect(JSON.stringify(run?.turns[0]?.message)).toContain("[MaxDepth]");
  });

  it("lists runs newest first, by status and agent, paged by cursor with each run once", async () => {
    const { first, second } = await open();
    const journal = first.journal;
    // 25 runs over 3 agents; two start in the same millisecond (the run id breaks the tie).
    const base = Date.parse("2026-03-01T10:00:00.000Z");
    for (let i = 0; i < 25; i++) {
      const startedAt = new Date(base + (i === 24 ? 23 : i) * 1000).toISOString();
      const agent = ["crm-sync", "support", "billing"][i % 3]!;
      const runId = `run_list_${String(i).padStart(2, "0")}`;
      expect(await journal.runStarted({ runId, agent, instructions: "i", input: `input ${i}`, startedAt }, "w1")).toBe(
        true,
      );
      if (i % 4 === 0) {
        const status = i % 8 === 0 ? "completed" : "awaiting_approval";
        await journal.runEnded(
          runId,
          { status, endedAt: new Date(base + i * 1000 + 500).toISOString(), result: null },
          "w1",
        );
      }
    }
    // Read through the second handle: what another process (an inspector) sees.
    const all = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await second.journal.list({ limit: 7, ...(cursor ? { cursor } : {}) });
      all.push(...page.runs);
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(all.map((r) => r.runId)).toEqual([
      "run_list_24",
      "run_list_23",
      ...Array.from({ length: 23 }, (_, k) => `run_list_${String(22 - k).padStart(2, "0")}`),
    ]);
    expect(all[0]).toEqual({
      runId: "run_list_24",
      agent: "crm-sync",
      startedAt: "2026-03-01T10:00:23.000Z",
      status: "completed",
      endedAt: "2026-03-01T10:00:24.500Z",
    });
    expect(all[1]).toEqual({
      runId: "run_list_23",
      agent: "billing",
      startedAt: "2026-03-01T10:00:23.000Z",
      status: "running",
    });

    const running = await second.journal.list({ status: "running", agent: "support" });
    expect(running.runs.map((r) => r.runId)).toEqual([
      "run_list_22",
      "run_list_19",
      "run_list_13",
      "run_list_10",
      "run_list_07",
      "run_list_01",
    ]);
    expect(running.next).toBeUndefined();
    const paused = await second.journal.list({ status: "awaiting_approval" });
    expect(paused.runs.map((r) => r.runId)).toEqual(["run_list_20", "run_list_12", "run_list_04"]);

    for (const bad of [{ limit: 0 }, { limit: 501 }, { cursor: "not-a-cursor" }, { status: "" }]) {
      await expect(second.journal.list(bad)).rejects.toMatchObject({ code: "INVALID_QUERY" });
    }
  });
}

/**
 * A journal cut off from its store while `cut.on` (a partition, or a process stopped): takes and
 * renewals answer `true` without reaching it. Once healed, they reach the store again; `renewals`
 * counts those that did.
 */
function partitioned(journal: RunJournal, cut: { on: boolean; renewals: number }): RunJournal {
  return new Proxy(journal, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      if (property !== "lease" && property !== "renew") return bound;
      return async (...args: unknown[]) => {
        if (cut.on) return true;
        cut.renewals++;
        return bound(...args);
      };
    },
  });
}

/** A journal whose lease renewals never reach the store (the writes still do, fenced). */
function withoutRenewals(journal: RunJournal): RunJournal {
  return new Proxy(journal, {
    get(target, property, receiver) {
      if (property === "renew") return async () => true;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
