import { describe, expect, it } from "vitest";
import type { RunJournal } from "../run-journal.js";
import { LONG_LEASE_MS, type OpenStores, runIdFor, startOf } from "./fixtures.js";

const ASKED = { by: "Ada (on call)", at: "2026-01-01T12:00:30.000Z" } as const;

/** The journal's cancel methods, or `undefined` for a store without them (the suite then skips). */
function cancelOf(journal: RunJournal) {
  const { requestCancel, cancelRequested } = journal;
  if (typeof requestCancel !== "function" || typeof cancelRequested !== "function") return undefined;
  return {
    request: (runId: string, request: { by: string; at: string }) => requestCancel.call(journal, runId, request),
    read: (runId: string) => cancelRequested.call(journal, runId),
  };
}

/**
 * Cancel requests (`requestCancel`, `cancelRequested`; optional methods: a store without them skips
 * this suite): who asked and when, seen by every process on the store; the first request stays (a
 * second is idempotent); a run it never saw is `RUN_NOT_FOUND`, a run ended for good `RUN_ENDED`;
 * a paused run may be asked.
 *
 * @example
 * ```ts
 * cancelContract(async ({ leaseMs }) => ({ first: store, second: store }));
 * ```
 */
export function cancelContract(open: OpenStores): void {
  describe("cancel requests", () => {
    it("records who asked and when; another process reads it; a second request keeps the first", async (ctx) => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const asking = cancelOf(first.journal);
      const holder = cancelOf(second.journal);
      if (asking === undefined || holder === undefined) return ctx.skip();
      const runId = runIdFor("cancel");
      expect(await first.journal.runStarted(startOf(runId), "worker-1")).toBe(true);
      expect(await holder.read(runId)).toBeUndefined();
      expect(await asking.request(runId, ASKED)).toEqual(ASKED);
      expect(await holder.read(runId)).toEqual(ASKED);
      const again = await holder.request(runId, { by: "Grace", at: "2026-01-01T12:00:40.000Z" });
      expect(again).toEqual(ASKED);
      expect(await asking.read(runId)).toEqual(ASKED);
      // The run itself is untouched: its holder still writes, and ends it.
      await first.journal.runEnded(runId, { status: "cancelled", endedAt: ASKED.at, result: null }, "worker-1");
      expect((await second.journal.read(runId))?.end?.status).toBe("cancelled");
    });

    it("refuses a run it never saw (RUN_NOT_FOUND) and a run ended for good (RUN_ENDED)", async (ctx) => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      const asking = cancelOf(first.journal);
      if (asking === undefined) return ctx.skip();
      await expect(asking.request(runIdFor("cancel_none"), ASKED)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
      const runId = runIdFor("cancel_ended");
      await first.journal.runStarted(startOf(runId), "worker-1");
      await first.journal.runEnded(runId, { status: "completed", endedAt: ASKED.at, result: null }, "worker-1");
      await expect(asking.request(runId, ASKED)).rejects.toMatchObject({ code: "RUN_ENDED" });
      expect(await asking.read(runId)).toBeUndefined();
    });

    it("accepts a paused run (its next holder cancels it) and refuses a request that names nobody", async (ctx) => {
      const { first } = await open({ leaseMs: LONG_LEASE_MS });
      const asking = cancelOf(first.journal);
      if (asking === undefined) return ctx.skip();
      const runId = runIdFor("cancel_paused");
      await first.journal.runStarted(startOf(runId), "worker-1");
      await expect(asking.request(runId, { by: " ", at: ASKED.at })).rejects.toThrow(TypeError);
      await expect(asking.request(runId, { by: "Ada", at: "not a time" })).rejects.toThrow(TypeError);
      await first.journal.runEnded(runId, { status: "awaiting_approval", endedAt: ASKED.at, result: null }, "worker-1");
      expect(await asking.request(runId, ASKED)).toEqual(ASKED);
    });
  });
}
