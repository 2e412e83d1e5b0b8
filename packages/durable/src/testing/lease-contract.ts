import { describe, expect, it } from "vitest";
import type { RunJournal } from "../run-journal.js";
import {
  callOf,
  LONG_LEASE_MS,
  type OpenStores,
  outcomeOf,
  runIdFor,
  SHORT_LEASE_MS,
  startOf,
  takeWhenFree,
  turnOf,
} from "./fixtures.js";

const END = { status: "completed", endedAt: "2026-01-01T12:01:00.000Z", result: null } as const;

/** Every write `owner` could make to a run: each must be refused when `owner` is not its holder. */
function writesOf(journal: RunJournal, runId: string, owner: string): readonly (() => Promise<unknown>)[] {
  return [
    () => journal.turn(runId, turnOf(5, ["late"]), owner),
    () => journal.callsStarted(runId, [callOf(runId, "late")], owner),
    () => journal.outcomes(runId, [outcomeOf(runId, "late")], owner),
    () => journal.runEnded(runId, END, owner),
  ];
}

/**
 * Resolves once `runId`'s lease has expired. Real time, polled: the store keeps time on its own clock
 * (a database's), which no fake timer reaches. A journal without `leaseOf` waits out twice the lease.
 */
async function untilExpired(journal: RunJournal, runId: string): Promise<void> {
  if (!journal.leaseOf) {
    await new Promise((resolve) => setTimeout(resolve, SHORT_LEASE_MS * 2));
    return;
  }
  await expect
    .poll(
      async () => {
        const lease = await journal.leaseOf!(runId);
        return lease === undefined || Date.parse(lease.expiresAt) < Date.now();
      },
      { timeout: 10_000, interval: 20 },
    )
    .toBe(true);
}

/** A take another owner holds live: `RUN_BUSY` (with `retryAfterMs`), or `false` where a store allows it. */
async function expectBusy(take: Promise<boolean>): Promise<void> {
  const result = await take.then(
    (taken) => ({ taken }),
    (error: unknown) => ({ error }),
  );
  if ("taken" in result) expect(result.taken).toBe(false);
  else expect(result.error).toMatchObject({ code: "RUN_BUSY", retryAfterMs: expect.any(Number) });
}

/**
 * Leases and fencing: exactly one process continues a run, and a process that lost its lease
 * writes nothing more.
 *
 * @example
 * ```ts
 * leaseContract(async ({ leaseMs }) => ({ first: new FileRunStore(dir, { leaseMs }), second: new FileRunStore(dir, { leaseMs }) }));
 * ```
 */
export function leaseContract(open: OpenStores): void {
  describe("leases", () => {
    it("reports the lease length it was given", async () => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      expect(first.journal.leaseMs).toBe(LONG_LEASE_MS);
    });

    it("leases a new run to its starter: another owner's take is busy, the holder's own take and renewals succeed", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("held");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await expectBusy(second.journal.lease(runId, "owner-b"));
      expect(await first.journal.lease(runId, "owner-a")).toBe(true);
      expect(await first.journal.renew(runId, "owner-a")).toBe(true);
      expect(await second.journal.renew(runId, "owner-b")).toBe(false);
    });

    it("refuses every write of an owner that never held the run, with RUN_BUSY and nothing written", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("stranger");
      await first.journal.runStarted(startOf(runId), "owner-a");
      const before = await first.journal.read(runId);
      for (const write of writesOf(second.journal, runId, "owner-b"))
        await expect(write()).rejects.toMatchObject({ code: "RUN_BUSY" });
      expect(await first.journal.read(runId)).toEqual(before);
    });

    it("a released run is free at once: another owner takes it, and the releaser's writes are refused", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("released");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.release(runId, "owner-a");
      expect(await second.journal.lease(runId, "owner-b")).toBe(true);
      await second.journal.turn(runId, turnOf(0, [], "Taken over."), "owner-b");
      for (const write of writesOf(first.journal, runId, "owner-a"))
        await expect(write()).rejects.toMatchObject({ code: "RUN_BUSY" });
      expect(await first.journal.renew(runId, "owner-a")).toBe(false);
      expect((await second.journal.read(runId))?.turns).toEqual([turnOf(0, [], "Taken over.")]);
    });

    it("fences a holder whose lease expired and was taken: its renewals fail and its writes land nowhere", async () => {
      const { first, second } = await open({ leaseMs: SHORT_LEASE_MS });
      const runId = runIdFor("fenced");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.turn(runId, turnOf(0, ["c1"]), "owner-a");
      await takeWhenFree(() => second.journal.lease(runId, "owner-b"), SHORT_LEASE_MS);
      await second.journal.turn(runId, turnOf(1, [], "The new holder's turn."), "owner-b");
      const before = await second.journal.read(runId);
      expect(await first.journal.renew(runId, "owner-a")).toBe(false);
      for (const write of writesOf(first.journal, runId, "owner-a"))
        await expect(write()).rejects.toMatchObject({ code: "RUN_BUSY" });
      // The old holder cannot take the run back while the new holder's lease is live.
      await second.journal.renew(runId, "owner-b");
      expect(await second.journal.read(runId)).toEqual(before);
      const lease = await second.journal.leaseOf?.(runId);
      if (lease !== undefined) expect(lease.owner).toBe("owner-b");
    });

    it("a holder whose lease expired but was not taken still writes (nobody else continued the run)", async () => {
      const { first } = await open({ leaseMs: SHORT_LEASE_MS });
      const runId = runIdFor("expired_untaken");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await untilExpired(first.journal, runId);
      await first.journal.turn(runId, turnOf(0, [], "Still mine."), "owner-a");
      expect((await first.journal.read(runId))?.turns).toHaveLength(1);
    });

    it("a final end is final: no owner, new or old, can take the run again or write over its end", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      for (const status of ["completed", "failed", "dead_lettered"]) {
        const runId = runIdFor(`final_${status}`);
        await first.journal.runStarted(startOf(runId), "owner-a");
        await first.journal.runEnded(runId, { ...END, status }, "owner-a");
        for (const [journal, owner] of [
          [second.journal, `fresh-${status}`],
          [first.journal, "owner-a"],
        ] as const) {
          await expect(journal.lease(runId, owner)).rejects.toMatchObject({ code: "RUN_ENDED" });
          await expect(journal.runEnded(runId, { ...END, status: "stalled" }, owner)).rejects.toMatchObject({
            code: "RUN_BUSY",
          });
        }
        expect((await second.journal.read(runId))?.end?.status).toBe(status);
      }
    });

    it("a paused run has no holder: its last owner's writes are refused until a new take, which any owner may make", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("ended");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.runEnded(runId, { ...END, status: "awaiting_approval" }, "owner-a");
      await expect(first.journal.turn(runId, turnOf(0), "owner-a")).rejects.toMatchObject({ code: "RUN_BUSY" });
      expect(await first.journal.renew(runId, "owner-a")).toBe(false);
      // An approval's continuation: a new take of the ended run, in a new epoch.
      const before = await second.journal.leaseOf?.(runId);
      expect(await second.journal.lease(runId, "owner-b")).toBe(true);
      await second.journal.turn(runId, turnOf(0, [], "Continued."), "owner-b");
      const after = await second.journal.leaseOf?.(runId);
      if (after?.epoch !== undefined && before?.epoch !== undefined) expect(after.epoch).toBeGreaterThan(before.epoch);
    });

    it("of two owners taking a free run at once, exactly one holds it", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("race");
      await first.journal.runStarted(startOf(runId), "owner-a");
      await first.journal.release(runId, "owner-a");
      const takes = await Promise.allSettled([
        first.journal.lease(runId, "owner-b"),
        second.journal.lease(runId, "owner-c"),
      ]);
      const held = takes.filter((take) => take.status === "fulfilled" && take.value);
      expect(held).toHaveLength(1);
      for (const take of takes) if (take.status === "rejected") expect(take.reason).toMatchObject({ code: "RUN_BUSY" });
      const winner = takes[0]?.status === "fulfilled" && takes[0].value ? "owner-b" : "owner-c";
      const loser = winner === "owner-b" ? "owner-c" : "owner-b";
      await expect(first.journal.turn(runId, turnOf(0), loser)).rejects.toMatchObject({ code: "RUN_BUSY" });
      await first.journal.turn(runId, turnOf(0), winner);
    });

    it("a lease on a run never started is not taken", async () => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("nothing");
      const taken = await first.journal.lease(runId, "owner-a").catch((error: unknown) => error);
      expect(taken === false || (taken as { code?: unknown }).code === "RUN_NOT_FOUND").toBe(true);
      expect(await first.journal.read(runId)).toBeUndefined();
    });
  });
}
