// Cancel through the public API, end to end, over each store (memory, file, PostgreSQL): a run whose
// tool is blocked in flight is asked to cancel (`POST /api/runs/:id/cancel`, i.e. `journal.requestCancel()`);
// its holder sees it at a lease renewal, aborts the call (the tool's signal carries the abort) and ends
// the run `cancelled`, the call answered `CANCELLED`. A second cancel is idempotent; a cancel of the
// finished run is refused `RUN_ENDED`; each is journaled with who and when.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentStore } from "@needlework/durable";
import { PostgresStore } from "@needlework/postgres";
import { FileRunStore, InMemoryRunStore } from "@needlework/workflows";
import { describe, expect, it } from "vitest";
import { DATABASE_URL, describePostgres, freshSchema } from "../../postgres/src/test-database.js";
import { startInspector } from "../src/index.js";
import { startBlockedRun } from "./support/blocked-run.js";

/** Short enough that a renewal (a third of it) comes soon; the bound below is generous. */
const LEASE_MS = 600;

async function cancelsOver(store: AgentStore): Promise<void> {
  const inspector = await startInspector({ store, port: 0 });
  const cancel = (runId: string, operator: string) =>
    fetch(new URL(`/api/runs/${encodeURIComponent(runId)}/cancel`, inspector.url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1", "x-needlework-operator": operator, "content-type": "application/json" },
      body: "{}",
    });
  try {
    const run = startBlockedRun(store, `cancel_${Date.now()}_${Math.random().toString(36).slice(2)}`);
    await run.started;
    const first = await cancel(run.runId, "Ada");
    expect(first.status).toBe(200);
    const asked = (await first.json()) as { status: string; by: string; at: string; already: boolean };
    expect(asked).toMatchObject({ status: "cancel_requested", by: "Ada", already: false });
    const second = await cancel(run.runId, "Grace");
    expect(await second.json()).toEqual({ ...asked, already: true });

    const result = await run.result;
    expect(result.status).toBe("cancelled");
    expect(result.status === "cancelled" && result.reason).toBe(`cancelled by Ada at ${asked.at}`);
    expect(result.calls).toEqual([
      expect.objectContaining({ tool: "export_ledger", status: "cancelled", errorCode: "CANCELLED" }),
    ]);
    // The abort reached the tool's own signal, as an AbortError: never swallowed.
    expect(await run.aborted).toMatchObject({ name: "AbortError" });

    const journaled = await store.journal.read(run.runId);
    expect(journaled?.end?.status).toBe("cancelled");
    expect(journaled?.calls[0]?.outcome?.outcome).toMatchObject({ status: "cancelled", errorCode: "CANCELLED" });
    // Within a lease period (the holder reads it at a renewal, a third of one): a generous bound.
    expect(Date.parse(journaled!.end!.endedAt) - Date.parse(asked.at)).toBeLessThan(LEASE_MS * 10);

    const late = await cancel(run.runId, "Ada");
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: "RUN_ENDED" });
    const missing = await cancel("no_such_run", "Ada");
    expect(missing.status).toBe(404);

    const view = (await (await fetch(new URL(`/api/runs/${run.runId}`, inspector.url))).json()) as {
      run: { status: string };
      actions: { action: string; by: string; result: string; at: string }[];
    };
    expect(view.run.status).toBe("cancelled");
    expect(view.actions.map((a) => [a.action, a.by, a.result])).toEqual([
      ["cancel", "Ada", "requested"],
      ["cancel", "Grace", "already requested"],
      ["cancel", "Ada", "RUN_ENDED"],
    ]);
    expect(view.actions.every((a) => !Number.isNaN(Date.parse(a.at)))).toBe(true);
  } finally {
    await inspector.close();
  }
}

describe("cancel a running run", () => {
  it("over an InMemoryRunStore", async () => {
    await cancelsOver(new InMemoryRunStore({ leaseMs: LEASE_MS }));
  });

  it("over a FileRunStore", async () => {
    const directory = await mkdtemp(join(tmpdir(), "needlework-cancel-"));
    try {
      await cancelsOver(new FileRunStore(directory, { leaseMs: LEASE_MS }));
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describePostgres("cancel a running run over PostgreSQL", () => {
  it("over a PostgresStore", async () => {
    const store = new PostgresStore({
      connectionString: DATABASE_URL,
      schema: freshSchema("ops_cancel"),
      leaseMs: LEASE_MS,
    });
    try {
      await store.migrate();
      await cancelsOver(store);
    } finally {
      await store.close();
    }
  });
});
