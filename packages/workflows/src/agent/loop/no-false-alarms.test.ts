import { HttpError, harness } from "../../../test/agent-fixtures.js";
import { describe, expect, it } from "vitest";
import type { ScriptedToolCall } from "@needlework/core";

// DESIGN, "No false alarms": a run in which every effect landed ends `completed`. A failure blocks
// until a success of the same call (tool and equal arguments) clears it; the model's repeat of a
// call keeps the first call's idempotency key, so a keyed API applies a write that had landed once.

const write = (contactId: string): ScriptedToolCall[] => [
  { name: "updateContact", arguments: { contactId, email: `${contactId}@harbor.example` } },
];

/** A CRM that applies a write at most once per idempotency key, as keyed write APIs do. */
function keyedCrm() {
  const h = harness();
  const applied = new Map<string, number>();
  const keys = new Set<string>();
  const apply = (contactId: string, key: string) => {
    if (keys.has(key)) return;
    keys.add(key);
    applied.set(contactId, (applied.get(contactId) ?? 0) + 1);
  };
  return { h, applied, apply };
}

describe("no false alarms", () => {
  it("a write that failed, then succeeded when the model repeated it, ends completed", async () => {
    const { h, applied, apply } = keyedCrm();
    let attempts = 0;
    h.world.on("updateContact", ({ contactId }, ctx) => {
      if (++attempts === 1) throw new HttpError(503, "Service Unavailable");
      apply(contactId as string, ctx.idempotencyKey);
      return { contactId, updated: true };
    });
    const { agent } = h.agent([
      { toolCalls: write("c1") },
      { toolCalls: write("c1") },
      { text: "Sync complete: c1 is updated." },
    ]);
    const result = await agent.run("Sync c1.");
    expect(result).toMatchObject({ status: "completed", silentFailure: false, stepsToRecovery: 1 });
    expect(result.health.blocking_failure).toBe(false);
    expect(applied.get("c1")).toBe(1);
  });

  it("a write that landed before its call timed out, repeated by the model, lands once and ends completed", async () => {
    const { h, applied, apply } = keyedCrm();
    const seenKeys: string[] = [];
    h.world.on("updateContact", ({ contactId }, ctx) => {
      seenKeys.push(ctx.idempotencyKey);
      apply(contactId as string, ctx.idempotencyKey);
      if (seenKeys.length === 1) throw Object.assign(new Error("socket timed out"), { code: "ETIMEDOUT" });
      return { contactId, updated: true };
    });
    const { agent } = h.agent([
      { toolCalls: write("c1") },
      { toolCalls: write("c1") },
      { text: "Sync complete: c1 is updated." },
    ]);
    const result = await agent.run("Sync c1.");
    expect(result.status).toBe("completed");
    // Reading the key declares nothing (the tool is not `idempotent: true`): its landed timeout reads
    // OUTCOME_UNKNOWN; the model's repeat keeps the key, so the write lands once.
    expect(result.calls.map((c) => c.status)).toEqual(["error", "ok"]);
    expect(result.calls[0]?.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(seenKeys[1]).toBe(seenKeys[0]);
    expect(applied.get("c1")).toBe(1);
  });

  it("a call sent twice in one round, one copy failing, ends completed whichever copy came first", async () => {
    for (const failing of [1, 2]) {
      const { h, applied, apply } = keyedCrm();
      let n = 0;
      h.world.on("updateContact", ({ contactId }, ctx) => {
        if (++n === failing) throw new HttpError(503, "Service Unavailable");
        apply(contactId as string, ctx.idempotencyKey);
        return { contactId, updated: true };
      });
      const { agent } = h.agent(
        [{ toolCalls: [...write("c1"), ...write("c1")] }, { text: "Sync complete: c1 is updated." }],
        { maxConcurrency: 1 },
      );
      const result = await agent.run("Sync c1.");
      expect(result.status).toBe("completed");
      expect(result.recoveries).toEqual([expect.objectContaining({ tool: "updateContact", steps: 0 })]);
      expect(applied.get("c1")).toBe(1);
    }
  });

  it("a write that never landed still flags the run, however the model words its answer", async () => {
    const { h } = keyedCrm();
    h.world.on("updateContact", () => {
      throw new HttpError(403, "Forbidden");
    });
    const { agent } = h.agent([{ toolCalls: write("c1") }, { text: "c1 failed: FORBIDDEN." }]);
    expect((await agent.run("Sync c1.")).status).toBe("completed_with_failures");
  });
});
