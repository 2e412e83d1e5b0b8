import { describe, expect, it } from "vitest";
import type { DeadLetterEntry, DeadLetterQueue, ManagedDeadLetterQueue } from "../dead-letter-queue.js";
import { LONG_LEASE_MS, type OpenStores, runIdFor } from "./fixtures.js";

function letterOf(
  runId: string,
  tool: string,
  errorCode = "CONFLICT",
  time = "2026-01-01T12:00:00.000Z",
): DeadLetterEntry {
  return {
    runId,
    agent: "contract-agent",
    tool,
    arguments: { contactId: "c1", note: "a\u0000b \u{1F600}" },
    errorCode,
    callIds: ["call_1", "call_2"],
    outcomes: [{ status: "error", error_code: errorCode }],
    time,
    reason: `Failed 2 times with ${errorCode} for the same arguments.`,
  };
}

function isManaged(queue: DeadLetterQueue): queue is ManagedDeadLetterQueue {
  return typeof (queue as Partial<ManagedDeadLetterQueue>).acknowledge === "function";
}

/**
 * Dead letters and checkpoint claims: what the other two parts of an `AgentStore` keep.
 *
 * @example
 * ```ts
 * deadLetterContract(async ({ leaseMs }) => ({ first: store, second: store }));
 * ```
 */
export function deadLetterContract(open: OpenStores): void {
  describe("dead letters", () => {
    it("lists appended letters, oldest first, as they were given, to another handle", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const runId = runIdFor("letters");
      await first.deadLetters.append(letterOf(runId, "crm_upsert"));
      await first.deadLetters.append(letterOf(runId, "send_email", "RATE_LIMITED", "2026-01-01T12:01:00.000Z"));
      const listed = (await second.deadLetters.list()).filter((letter) => letter.runId === runId);
      expect(listed).toEqual([
        expect.objectContaining(letterOf(runId, "crm_upsert")),
        expect.objectContaining(letterOf(runId, "send_email", "RATE_LIMITED", "2026-01-01T12:01:00.000Z")),
      ]);
    });

    it("a managed queue filters, pages, and acknowledges each letter once", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      if (!isManaged(first.deadLetters) || !isManaged(second.deadLetters)) return; // list and append only
      const runId = runIdFor("managed");
      for (const tool of ["a_tool", "b_tool", "c_tool"]) await first.deadLetters.append(letterOf(runId, tool));
      const all = await second.deadLetters.list({ runId });
      expect(all.map((letter) => letter.tool)).toEqual(["a_tool", "b_tool", "c_tool"]);
      expect(new Set(all.map((letter) => letter.id)).size).toBe(3);
      expect((await second.deadLetters.list({ runId, tool: "b_tool" })).map((l) => l.tool)).toEqual(["b_tool"]);
      expect((await second.deadLetters.list({ runId, offset: 1, limit: 1 })).map((l) => l.tool)).toEqual(["b_tool"]);
      const id = all[0]!.id;
      expect(await second.deadLetters.acknowledge(id)).toBe(true);
      expect(await first.deadLetters.acknowledge(id)).toBe(false);
      const open_ = await first.deadLetters.list({ runId, acknowledged: false });
      expect(open_.map((letter) => letter.tool)).toEqual(["b_tool", "c_tool"]);
      const done = await first.deadLetters.list({ runId, acknowledged: true });
      expect(done).toEqual([expect.objectContaining({ id, acknowledgedAt: expect.any(String) })]);
      expect(await first.deadLetters.acknowledge("no-such-letter")).toBe(false);
    });
  });

  // Deprecated (agents no longer read them): checked only for a store that still has claims.
  describe("checkpoint claims (deprecated)", () => {
    it("claims a checkpoint once, across handles", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      if (first.resumedCheckpoints === undefined || second.resumedCheckpoints === undefined) return;
      const id = runIdFor("checkpoint").replace(/[^A-Za-z0-9_-]/g, "_");
      expect(await first.resumedCheckpoints.claim(id)).toBe(true);
      expect(await second.resumedCheckpoints.claim(id)).toBe(false);
      expect(await first.resumedCheckpoints.claim(id)).toBe(false);
    });

    it("of concurrent claims of one checkpoint, exactly one wins", async () => {
      const { first, second } = await open({ leaseMs: LONG_LEASE_MS });
      const [a, b] = [first.resumedCheckpoints, second.resumedCheckpoints];
      if (a === undefined || b === undefined) return;
      const id = runIdFor("race").replace(/[^A-Za-z0-9_-]/g, "_");
      const claims = await Promise.all([a.claim(id), b.claim(id), a.claim(id), b.claim(id)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
    });
  });
}
