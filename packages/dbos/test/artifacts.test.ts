// G6 on DBOS: a 5 MB tool result is an artifact reference in DBOS's step record (never the bytes),
// and a run recovered after its process died reads the artifact back; without an artifact store the
// step records a clear RESULT_TOO_LARGE (the tool runs once: no retry loop).
import { randomUUID } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { PostgresStore } from "@needlework/postgres";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DbosExecution } from "../src/index.js";
import { REPORT_ROWS, type ReportSummary, reportAgent, reportRuns, runReport, TurnGate } from "./report-world.js";
import { DATABASE_URL, DBOS_DATABASE_URL, describeWithPostgres, dropDbosSchema, freshSchema } from "./test-database.js";

describeWithPostgres("DbosExecution: a 5 MB result", () => {
  const schema = freshSchema("engines_art_dbos");
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema: freshSchema("engines_art_store") });
  const gate = new TurnGate();
  const stored = reportAgent(DbosExecution.factory(), gate, store.artifacts);
  const plain = reportAgent(DbosExecution.factory(), gate);
  const withArtifacts = DBOS.registerWorkflow(async () => runReport(stored, DBOS.workflowID!), {
    name: "engines_art_stored",
  });
  const withoutArtifacts = DBOS.registerWorkflow(async () => runReport(plain, DBOS.workflowID!), {
    name: "engines_art_plain",
  });

  async function launch(): Promise<void> {
    DBOS.setConfig({
      name: "engines-art",
      systemDatabaseUrl: DBOS_DATABASE_URL,
      systemDatabaseSchemaName: schema,
      applicationVersion: "art",
      logLevel: "error",
    });
    await DBOS.launch();
  }

  /** What DBOS recorded for the run's steps: each step's name and serialized output. */
  async function recordedSteps(runId: string): Promise<{ name: string; output: string }[]> {
    const client = new pg.Client({ connectionString: DBOS_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; output: string | null }>(
        `SELECT function_name AS name, output FROM "${schema}".operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id`,
        [runId],
      );
      return rows.map((row) => ({ name: row.name, output: row.output ?? "" }));
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await store.migrate();
    await launch();
  });

  afterAll(async () => {
    await DBOS.shutdown();
    await dropDbosSchema(schema);
    await store.pool.query(`DROP SCHEMA IF EXISTS "${store.schema}" CASCADE`);
    await store.close();
  });

  it("records the artifact's reference in the step, and a recovered run reads the artifact back", async () => {
    const runId = `art-${randomUUID()}`;
    const before = reportRuns.count;
    const reached = gate.arm();
    await DBOS.startWorkflow(withArtifacts, { workflowID: runId })();
    await reached; // the report's outcome is recorded; the model's next turn hangs
    // The process dies between two steps; a new one recovers the run from DBOS's record.
    await DBOS.shutdown();
    await launch();
    const summary: ReportSummary = await DBOS.retrieveWorkflow<ReportSummary>(runId).getResult();

    expect(summary.status).toBe("completed");
    expect(summary.calls.map((c) => [c.tool, c.status])).toEqual([
      ["report", "ok"],
      ["read_artifact", "ok"],
    ]);
    expect(reportRuns.count - before).toBe(1); // the recorded outcome came back; the tool did not run again
    const page = JSON.parse(summary.text) as { data: { items: { id: number }[]; offset: number; total: number } };
    expect(page.data.items.map((row) => row.id)).toEqual([0, 1, 2]);
    expect(page.data.total).toBe(REPORT_ROWS);

    const [artifact, ...others] = await store.artifacts.list(runId);
    expect(others).toEqual([]);
    expect(artifact!.bytes).toBeGreaterThan(5_000_000);
    const steps = await recordedSteps(runId);
    const call = steps.find((step) => step.name.startsWith("call:") && step.output.includes(artifact!.id));
    expect(call, "the report's step records the artifact's id").toBeDefined();
    expect(call!.output.length).toBeLessThan(16_384);
    const recorded = steps.reduce((sum, step) => sum + step.output.length, 0);
    expect(recorded, "the whole run's record in DBOS, with a 5 MB result").toBeLessThan(64 * 1024);
  });

  it("without an artifact store, records RESULT_TOO_LARGE once instead of the bytes", async () => {
    const runId = `plain-${randomUUID()}`;
    const before = reportRuns.count;
    const summary = await (await DBOS.startWorkflow(withoutArtifacts, { workflowID: runId })()).getResult();
    expect(summary.status).toBe("completed_with_failures");
    expect(summary.calls).toEqual([{ tool: "report", status: "error", errorCode: "RESULT_TOO_LARGE" }]);
    expect(summary.text).toContain("usingArtifacts()");
    expect(reportRuns.count - before).toBe(1);
    const steps = await recordedSteps(runId);
    expect(steps.reduce((sum, step) => sum + step.output.length, 0)).toBeLessThan(64 * 1024);
  });
});
