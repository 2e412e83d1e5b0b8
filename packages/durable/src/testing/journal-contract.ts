import { describe, expect, it } from "vitest";
import type { RunJournal } from "../run-journal.js";
import { callOf, LONG_LEASE_MS, type OpenStores, outcomeOf, runIdFor, startOf, turnOf } from "./fixtures.js";

/** Writes a whole run as `owner`: start, a turn with two calls, their outcomes, a final turn. */
async function writeRun(journal: RunJournal, runId: string, owner: string, agent?: string, minutesAgo = 0) {
  expect(await journal.runStarted(startOf(runId, agent, minutesAgo), owner)).toBe(true);
  await journal.turn(runId, turnOf(0, ["c1", "c2"]), owner);
  await journal.callsStarted(runId, [callOf(runId, "c1"), callOf(runId, "c2")], owner);
  await journal.outcomes(runId, [outcomeOf(runId, "c2")], owner);
  await journal.outcomes(runId, [outcomeOf(runId, "c1")], owner);
  await journal.turn(runId, turnOf(1, [], "Synced c1."), owner);
}

/**
 * The records of a run: what a journal keeps, as it was given, read back by another handle.
 *
 * @example
 * ```ts
 * journalRecordsContract(async ({ leaseMs }) => ({ first: store, second: store }));
 * ```
 */
export function journalRecordsContract(open: OpenStores): void {
  describe("journal records", () => {
    it("reads back a run as it was written, by another handle: start, turns in order, calls with their outcomes, end", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("records");
      await writeRun(first.journal, runId, "owner-a");
      const end = { status: "completed", endedAt: "2026-01-01T12:01:00.000Z", result: { runId, text: "Synced c1." } };
      await first.journal.runEnded(runId, end, "owner-a");
      const run = await second.journal.read(runId);
      expect(run).toMatchObject({ ...startOf(runId), end });
      expect(run?.turns).toEqual([turnOf(0, ["c1", "c2"]), turnOf(1, [], "Synced c1.")]);
      // Calls in the order they started, each with the outcome that settled for it.
      expect(run?.calls).toEqual([
        { ...callOf(runId, "c1"), outcome: outcomeOf(runId, "c1") },
        { ...callOf(runId, "c2"), outcome: outcomeOf(runId, "c2") },
      ]);
    });

    it("keeps a call without an outcome as started (what a resume checks), and a run without an end as running", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("in_flight");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.turn(runId, turnOf(0, ["c1"]), "owner-a");
      await first.journal.callsStarted(runId, [callOf(runId, "c1")], "owner-a");
      const run = await second.journal.read(runId);
      expect(run?.end).toBeUndefined();
      expect(run?.calls).toEqual([callOf(runId, "c1")]);
      expect(run?.calls[0]?.outcome).toBeUndefined();
    });

    it("keeps an approved call's decision record as it was given", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("approval");
      const approval = { decision: "approved", signature: "ab".repeat(32) } as const;
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.turn(runId, turnOf(0, ["c1"]), "owner-a");
      await first.journal.callsStarted(runId, [{ ...callOf(runId, "c1"), approval }], "owner-a");
      expect((await second.journal.read(runId))?.calls[0]?.approval).toEqual(approval);
    });

    it("refuses a second start of one run id: false, and the first run unchanged", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("twice");
      expect(await first.journal.runStarted(startOf(runId), "owner-a")).toBe(true);
      const before = await first.journal.read(runId);
      expect(await second.journal.runStarted(startOf(runId, "another-agent"), "owner-b")).toBe(false);
      expect(await first.journal.read(runId)).toEqual(before);
    });

    it("answers undefined for a run it never saw", async () => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      expect(await first.journal.read(runIdFor("unknown"))).toBeUndefined();
    });

    it("keeps copies: changing what was written, or what was read, changes nothing stored", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("copies");
      const call = structuredClone(callOf(runId, "c1")) as unknown as { arguments: { id: string } };
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.turn(runId, turnOf(0, ["c1"]), "owner-a");
      await first.journal.callsStarted(runId, [call as unknown as ReturnType<typeof callOf>], "owner-a");
      call.arguments.id = "changed";
      const read = await second.journal.read(runId);
      (read?.calls[0]?.arguments as { id: string }).id = "changed too";
      expect((await second.journal.read(runId))?.calls[0]?.arguments).toEqual(callOf(runId, "c1").arguments);
    });

    it("commit(), when a journal has it, writes a start, turns, calls, outcomes and an end like the methods one by one", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const commit = first.journal.commit?.bind(first.journal);
      if (commit === undefined) return; // optional: the agent writes record by record without it
      const runId = runIdFor("commit");
      expect(
        await commit(
          runId,
          { start: startOf(runId), turns: [turnOf(0, ["c1"])], calls: [callOf(runId, "c1")] },
          "owner-a",
        ),
      ).toBe(true);
      expect(await commit(runId, { start: startOf(runId) }, "owner-b")).toBe(false);
      const end = { status: "completed", endedAt: "2026-01-01T12:01:00.000Z", result: { runId } };
      await commit(
        runId,
        { outcomes: [outcomeOf(runId, "c1")], turns: [turnOf(1, [], "Done.")], end, release: true },
        "owner-a",
      );
      const run = await second.journal.read(runId);
      expect(run?.turns).toEqual([turnOf(0, ["c1"]), turnOf(1, [], "Done.")]);
      expect(run?.calls).toEqual([{ ...callOf(runId, "c1"), outcome: outcomeOf(runId, "c1") }]);
      expect(run?.end).toEqual(end);
    });

    it("takeAndRead(), when a journal has it, reads the agent's unfinished run and leases it; another agent's run is not taken", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const takeAndRead = second.journal.takeAndRead?.bind(second.journal);
      if (takeAndRead === undefined) return; // optional: read, lease, read again without it
      const runId = runIdFor("take_read");
      await writeRun(first.journal, runId, "owner-a");
      await first.journal.release(runId, "owner-a");
      const run = await takeAndRead(runId, "owner-b", "contract-agent");
      expect(run?.turns).toHaveLength(2);
      // owner-b holds it now: owner-a's writes are refused.
      await expect(first.journal.turn(runId, turnOf(2), "owner-a")).rejects.toMatchObject({ code: "RUN_BUSY" });
      await second.journal.turn(runId, turnOf(2, [], "Resumed."), "owner-b");
      expect(await takeAndRead(runIdFor("never_started"), "owner-b", "contract-agent")).toBeUndefined();
    });
  });
}

/**
 * `list` and `leaseOf`: what a run inspector or an operator's script reads.
 *
 * @example
 * ```ts
 * runListContract(async ({ leaseMs }) => ({ first: store, second: store }));
 * ```
 */
export function runListContract(open: OpenStores): void {
  describe("run list", () => {
    it("lists runs newest first with their status, paged by the cursor it returns", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const ids = [runIdFor("list_old"), runIdFor("list_mid"), runIdFor("list_new")];
      for (const [age, runId] of ids.entries())
        await first.journal.runStarted(startOf(runId, "lister", 3 - age), "owner-a");
      await first.journal.runEnded(
        ids[0]!,
        { status: "completed", endedAt: "2026-01-01T12:05:00.000Z", result: null },
        "owner-a",
      );
      const page = await second.journal.list({ agent: "lister", limit: 2 });
      expect(page.runs.map((run) => run.runId)).toEqual([ids[2], ids[1]]);
      expect(page.runs[0]).toMatchObject({
        agent: "lister",
        status: "running",
        startedAt: startOf(ids[2]!, "lister", 1).startedAt,
      });
      expect(page.next).toEqual(expect.any(String));
      const rest = await second.journal.list({ agent: "lister", limit: 2, cursor: page.next! });
      expect(rest.runs).toEqual([
        expect.objectContaining({ runId: ids[0], status: "completed", endedAt: "2026-01-01T12:05:00.000Z" }),
      ]);
      expect(rest.next).toBeUndefined();
      const running = await second.journal.list({ agent: "lister", status: "running" });
      expect(running.runs.map((run) => run.runId)).toEqual([ids[2], ids[1]]);
    });

    it("refuses a bad query with RunStoreError INVALID_QUERY", async () => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      for (const query of [{ limit: 0 }, { limit: 1.5 }, { cursor: "not a cursor" }, { status: "" }])
        await expect(first.journal.list(query)).rejects.toMatchObject({ code: "INVALID_QUERY" });
    });

    it("leaseOf(), when a journal has it, names the holder and a future expiry, and nothing for a run never started", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      if (second.journal.leaseOf === undefined) return; // optional
      const runId = runIdFor("lease_of");
      await first.journal.runStarted(startOf(runId), "owner-a");
      const lease = await second.journal.leaseOf(runId);
      expect(lease).toMatchObject({ owner: "owner-a" });
      expect(Date.parse(lease!.expiresAt)).toBeGreaterThan(Date.now());
      expect(await second.journal.leaseOf(runIdFor("never_started"))).toBeUndefined();
    });
  });
}
