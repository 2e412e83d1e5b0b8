// The example's runs, written through the public API, read back through the inspector's API.
import "reflect-metadata";
import { startInspector } from "@needlework/inspector";
import { InMemoryRunStore } from "@needlework/workflows";
import { describe, expect, it } from "vitest";
import { seedRuns } from "./seed-runs.js";

describe("the inspector example", () => {
  it("journals the CRM sync and a paused refund, and the inspector shows both", async () => {
    const store = new InMemoryRunStore();
    const { sync, refund } = await seedRuns(store);
    const inspector = await startInspector({ store, port: 0 });
    try {
      const json = async (path: string) => (await fetch(new URL(path, inspector.url))).json();
      const { runs } = (await json("/api/runs")) as { runs: { runId: string; status: string }[] };
      expect(runs).toEqual([
        expect.objectContaining({ runId: refund, status: "awaiting_approval" }),
        expect.objectContaining({ runId: sync, status: "completed_with_failures" }),
      ]);
      const paused = (await json(`/api/runs/${refund}`)) as { events: { type: string; pending?: unknown }[] };
      expect(paused.events.find((e) => e.type === "approval-required")?.pending).toEqual([
        expect.objectContaining({ tool: "refund", arguments: { orderId: "ORD-1042", amountCents: 4999 } }),
      ]);
      const synced = (await json(`/api/runs/${sync}`)) as {
        events: { type: string; outcome?: { errorCode?: string } }[];
      };
      expect(synced.events.filter((e) => e.type === "tool-result").map((e) => e.outcome?.errorCode)).toContain(
        "FORBIDDEN",
      );
      expect(synced.events.some((e) => e.type === "correction")).toBe(true);
    } finally {
      await inspector.close();
    }
  });
});
