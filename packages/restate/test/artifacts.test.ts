// G6 on Restate: a 5 MB tool result is an artifact reference in Restate's journal (never the bytes),
// and an invocation retried after its endpoint died reads the artifact back; without an artifact
// store the step journals a clear RESULT_TOO_LARGE (the tool runs once: no retry loop).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileArtifactStore } from "@needlework/durable";
import * as restate from "@restatedev/restate-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REPORT_ROWS,
  type ReportSummary,
  reportAgent,
  reportRuns,
  runReport,
  TurnGate,
} from "../../dbos/test/report-world.js";
import { RestateExecution } from "../src/index.js";
import { freePort, type RestateServer, restateServerBinary, startRestateServer } from "../src/testing.js";
import { cannotRun } from "../../../test/support/cannot-run.js";

const body = () => {
  const folder = mkdtempSync(join(tmpdir(), "engines-art-restate-"));
  const artifacts = new FileArtifactStore(folder);
  const gate = new TurnGate();
  const stored = reportAgent(RestateExecution.factory(), gate, artifacts);
  const plain = reportAgent(RestateExecution.factory(), gate);
  const workflow = (name: string, agent: typeof stored) =>
    restate.workflow({
      name,
      handlers: {
        run: (ctx: restate.WorkflowContext) => RestateExecution.run(ctx, () => runReport(agent, ctx.key)),
      },
      options: { retryPolicy: { initialInterval: 20, maxInterval: 200 } },
    });
  let server: RestateServer;
  let endpoint: http2.Http2Server;
  const sessions = new Set<http2.ServerHttp2Session>();

  beforeAll(async () => {
    server = await startRestateServer();
    const port = await freePort();
    endpoint = http2.createServer(
      restate.createEndpointHandler({
        services: [workflow("engines_art_stored", stored), workflow("engines_art_plain", plain)],
        logger: () => undefined,
      }),
    );
    endpoint.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    await new Promise<void>((resolve) => endpoint.listen(port, "127.0.0.1", resolve));
    await server.register(`http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    for (const session of sessions) session.destroy();
    await new Promise<void>((resolve) => endpoint?.close(() => resolve()));
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  async function start(workflowName: string, runId: string): Promise<string> {
    const response = await fetch(`${server.ingressUrl}/${workflowName}/${runId}/run/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "null",
    });
    expect(response.ok).toBe(true);
    return ((await response.json()) as { invocationId: string }).invocationId;
  }

  async function output(workflowName: string, runId: string): Promise<ReportSummary> {
    const response = await fetch(`${server.ingressUrl}/restate/workflow/${workflowName}/${runId}/attach`);
    expect(response.ok).toBe(true);
    return (await response.json()) as ReportSummary;
  }

  /** The invocation's journal as the server holds it: each entry's name, bytes (hex) and size. */
  async function journal(invocationId: string): Promise<{ name: string | null; raw: string; raw_length: number }[]> {
    const response = await fetch(`${server.adminUrl}/query`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        query: `SELECT name, raw, raw_length FROM sys_journal WHERE id = '${invocationId}' ORDER BY index`,
      }),
    });
    expect(response.ok).toBe(true);
    return ((await response.json()) as { rows: { name: string | null; raw: string; raw_length: number }[] }).rows;
  }

  it("journals the artifact's reference, and a retried invocation reads the artifact back", async () => {
    const runId = `art-${randomUUID()}`;
    const before = reportRuns.count;
    const reached = gate.arm();
    const invocationId = await start("engines_art_stored", runId);
    await reached; // the report's outcome is journaled; the model's next turn hangs
    const [artifact, ...others] = await artifacts.list(runId);
    expect(others).toEqual([]);
    expect(artifact!.bytes).toBeGreaterThan(5_000_000);
    const entries = await journal(invocationId);
    expect(entries.some((entry) => entry.name?.startsWith("call:"))).toBe(true);
    const reference = entries.filter((entry) => entry.raw.includes(Buffer.from(artifact!.id).toString("hex")));
    expect(reference.length, "the report's journaled outcome holds the artifact's id").toBeGreaterThan(0);
    expect(Math.max(...entries.map((entry) => entry.raw_length))).toBeLessThan(16_384);
    const journaled = entries.reduce((sum, entry) => sum + entry.raw_length, 0);
    expect(journaled, "the whole run's journal in Restate, with a 5 MB result").toBeLessThan(64 * 1024);
    // The endpoint dies: its connections drop, and Restate retries the invocation, replaying its journal.
    for (const session of sessions) session.destroy();
    const summary = await output("engines_art_stored", runId);

    expect(summary.status).toBe("completed");
    expect(summary.calls.map((c) => [c.tool, c.status])).toEqual([
      ["report", "ok"],
      ["read_artifact", "ok"],
    ]);
    expect(reportRuns.count - before).toBe(1);
    const page = JSON.parse(summary.text) as { data: { items: { id: number }[]; total: number } };
    expect(page.data.items.map((row) => row.id)).toEqual([0, 1, 2]);
    expect(page.data.total).toBe(REPORT_ROWS);
  });

  it("without an artifact store, journals RESULT_TOO_LARGE once instead of the bytes", async () => {
    const runId = `plain-${randomUUID()}`;
    const before = reportRuns.count;
    await start("engines_art_plain", runId);
    const summary = await output("engines_art_plain", runId);
    expect(summary.status).toBe("completed_with_failures");
    expect(summary.calls).toEqual([{ tool: "report", status: "error", errorCode: "RESULT_TOO_LARGE" }]);
    expect(summary.text).toContain("usingArtifacts()");
    expect(reportRuns.count - before).toBe(1);
  });
};

if (restateServerBinary() === undefined) {
  cannotRun(
    "RestateExecution: a 5 MB result",
    "no restate-server binary: run `npx -y pnpm@10 install` (@restatedev/restate-server)",
  );
} else {
  describe("RestateExecution: a 5 MB result", body);
}
