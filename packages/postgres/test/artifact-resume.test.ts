// A run whose tool returned 10,000 rows, killed with SIGKILL while paging through the artifact, is
// resumed by another process on PostgreSQL: the journal holds the reference (each call's row under
// 4 KB), and the resumed run reads the artifact back from the store and pages on to the end.
import "reflect-metadata";
import type { ArtifactStore } from "@needlework/durable";
import { afterEach, expect, it } from "vitest";
import { pagingModel, ROW_COUNT } from "../../workflows/test/artifacts/artifact-fixtures.js";
import { startWorker, type Worker } from "../../workflows/test/support/stalled-worker.js";
import { PostgresStore } from "../src/postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "../src/test-database.js";
import { artifactAgent } from "./artifact-agent.js";

const LEASE_MS = 2_000;
const workers: Worker[] = [];
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child.kill("SIGKILL");
    await w.exited;
  }
  for (const store of stores.splice(0)) await store.close();
});

describePostgres("PostgresStore: a run with an artifact, killed with SIGKILL", () => {
  it("resumes in another process, which reads the artifact back; the journal keeps references, rows under 4 KB", async () => {
    const schema = freshSchema();
    const runId = "run_artifact_sigkill";
    const worker = startWorker(
      new URL("./artifact-worker.ts", import.meta.url),
      [DATABASE_URL, schema, String(LEASE_MS), runId, "3"],
      {},
    );
    workers.push(worker);
    expect(await worker.line("paged")).toBe("3");
    // Killed once the journal holds the tool's call and the three pages: the writer commits within
    // its group-commit window, and a kill inside it would leave the run to start over (no read back).
    const journaled = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 1 });
    stores.push(journaled);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await journaled.pool.query(
        `SELECT count(*)::int AS done FROM "${schema}".run_calls WHERE run_id = $1 AND outcome IS NOT NULL`,
        [runId],
      );
      if (rows[0].done >= 4) break;
      if (Date.now() > deadline) throw new Error("the worker did not journal its pages");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    worker.child.kill("SIGKILL");
    await worker.exited;

    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, leaseMs: LEASE_MS, maxConnections: 4 });
    stores.push(store);
    let reads = 0;
    const counted: ArtifactStore = {
      put: (artifact) => store.artifacts.put(artifact),
      get: (run, id) => {
        reads++;
        return store.artifacts.get(run, id);
      },
      list: (run) => store.artifacts.list(run),
      deleteRun: (run) => store.artifacts.deleteRun(run),
    };
    const model = pagingModel([]);
    const agent = artifactAgent(store, counted, model);
    // The killed process held the run's lease: resume once it expired (RUN_BUSY says when).
    let result: unknown;
    for (let attempt = 0; attempt < 20; attempt++) {
      result = await agent.resumeRun(runId).catch((e: unknown) => e);
      const busy = (result as { code?: string; retryAfterMs?: number }).code === "RUN_BUSY";
      if (!busy) break;
      await new Promise((resolve) => setTimeout(resolve, (result as { retryAfterMs: number }).retryAfterMs + 20));
    }
    expect(result).toMatchObject({ status: "completed", text: `Read ${ROW_COUNT} rows.` });
    expect(reads).toBeGreaterThan(0); // this process never stored it: it read it back from PostgreSQL

    // Every row exactly once, over the pages before the kill (replayed) and after it.
    const pages = model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .slice(1)
      .map((m) => JSON.parse(m.content).data as { items: { id: number }[] });
    const ids = pages.flatMap((p) => p.items.map((row) => row.id));
    expect(ids).toEqual(Array.from({ length: ROW_COUNT }, (_, i) => i));

    const { rows } = await store.pool.query<{ bytes: number }>(
      `SELECT octet_length(coalesce(arguments::text, '')) + octet_length(coalesce(outcome::text, ''))
         + octet_length(coalesce(formatted, '')) AS bytes FROM "${schema}".run_calls WHERE run_id = $1`,
      [runId],
    );
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(row.bytes).toBeLessThan(4096);
    const stored = await store.artifacts.list(runId);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.bytes).toBeGreaterThan(500_000);
  }, 120_000);
});
