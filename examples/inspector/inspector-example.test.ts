// The example's runs, written through the public API, read back and acted on through the inspector's API.
import "reflect-metadata";
import { startInspector } from "@needlework/inspector";
import { InMemoryRunStore } from "@needlework/workflows";
import { describe, expect, it } from "vitest";
import { seedRuns } from "./seed-runs.js";

describe("the inspector example", () => {
  it("journals a sync, a paused refund, a dead letter and an interrupted run, and acts on each from the API", async () => {
    const store = new InMemoryRunStore();
    const seeded = await seedRuns(store);
    const inspector = await startInspector({ store, port: 0, agents: seeded.agents });
    try {
      const json = async (path: string) => (await fetch(new URL(path, inspector.url))).json();
      const act = async (path: string, body: unknown = {}) =>
        fetch(new URL(path, inspector.url), {
          method: "POST",
          headers: {
            "x-needlework-inspector": "1",
            "content-type": "application/json",
            "x-needlework-operator": "Ada",
          },
          body: JSON.stringify(body),
        });
      const { runs } = (await json("/api/runs")) as { runs: { runId: string; status: string }[] };
      expect(Object.fromEntries(runs.map((r) => [r.runId, r.status]))).toEqual({
        [seeded.sync]: "completed_with_failures",
        [seeded.refund]: "awaiting_approval",
        [seeded.poisoned]: "dead_lettered",
        [seeded.interrupted]: "interrupted",
      });
      const paused = (await json(`/api/runs/${seeded.refund}`)) as {
        events: { type: string; pending?: { callId: string; arguments: unknown }[] }[];
      };
      const pending = paused.events.find((e) => e.type === "approval-required")?.pending ?? [];
      expect(pending).toEqual([
        expect.objectContaining({ tool: "refund", arguments: { orderId: "ORD-1042", amountCents: 4999 } }),
      ]);
      const approved = await act(`/api/runs/${seeded.refund}/decisions`, {
        decisions: { [pending[0]!.callId]: "approved" },
      });
      expect(await approved.json()).toEqual({ status: "completed" });
      expect(seeded.payments.refunded).toEqual(["ORD-1042"]);

      expect(await (await act(`/api/runs/${seeded.interrupted}/resume`)).json()).toEqual({ status: "completed" });
      expect(seeded.contacts.followUps).toBe(1);

      const { letters } = (await json("/api/dead-letters?acknowledged=false")) as { letters: { id: string }[] };
      expect((await act(`/api/dead-letters/${letters[0]!.id}/replay`)).status).toBe(200);
      expect(seeded.contacts.merged).toBe(1);
      const run = (await json(`/api/runs/${seeded.refund}`)) as { actions: { action: string; by: string }[] };
      expect(run.actions).toEqual([expect.objectContaining({ action: "approve", by: "Ada" })]);
    } finally {
      await inspector.close();
    }
  });
});
