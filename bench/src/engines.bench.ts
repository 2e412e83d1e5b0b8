import "reflect-metadata";
import { randomUUID } from "node:crypto";
import http2 from "node:http2";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { DbosExecution } from "@needlework/dbos";
import { PostgresStore } from "@needlework/postgres";
import { RestateExecution } from "@needlework/restate";
import { freePort, type RestateServer, restateServerBinary, startRestateServer } from "@needlework/restate/testing";
import type { Agent } from "@needlework/workflows";
import * as restate from "@restatedev/restate-sdk";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { ENGINE_CALLS, enginesAgent } from "./lib/engines-agent.js";
import { DATABASE_URL, dropSchemas, postgresUp } from "./lib/postgres.js";

// Durable engines beside the built-in journal (issue 51, G7): ms per tool call of one agent run (two
// rounds of four calls returning customer objects with their orders, about 2 KB each, then an answer;
// a model with no latency) on the built-in journal in PostgreSQL, inside a DBOS workflow (its system
// tables on the same PostgreSQL) and inside a Restate workflow (the npm restate-server, journal in its
// own RocksDB on the same disk), the three taken in turn run after run so they share the machine's
// load, and with no store (the floor: the loop and the tools alone).

const RUNS = 30;
const WARM_UP = 3;
const WORKFLOW = "bench_engines";
/** Durable steps of a run inside an engine: a step per model turn (3), per round's start (2), per call. */
const ENGINE_STEPS = ENGINE_CALLS + 2 + 3;
const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

type Engine = "no store (floor)" | "built-in journal, PostgreSQL" | "DBOS" | "Restate";

interface Setup {
  readonly runs: Map<Engine, () => Promise<void>>;
  readonly close: () => Promise<void>;
  readonly skipped: string[];
}

function check(status: string, calls: number, where: string): void {
  if (status !== "completed" || calls !== ENGINE_CALLS)
    throw new Error(`engines bench, ${where}: ${status} with ${calls} calls (${ENGINE_CALLS} expected)`);
}

async function summary(agent: Agent, runId: string): Promise<{ status: string; calls: number }> {
  const result = await agent.run("Settle the customers.", { runId });
  return { status: result.status, calls: result.calls.length };
}

async function setUp(): Promise<Setup> {
  const runs = new Map<Engine, () => Promise<void>>();
  const closers: (() => Promise<void>)[] = [];
  const skipped: string[] = [];
  const floor = enginesAgent({});
  runs.set("no store (floor)", async () => {
    const result = await summary(floor, `floor-${randomUUID()}`);
    check(result.status, result.calls, "no store");
  });

  if (await postgresUp()) {
    const schema = `bench_engines_journal_${process.pid}`;
    const dbosSchema = `bench_engines_dbos_${process.pid}`;
    await dropSchemas(schema, dbosSchema);
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
    await store.migrate();
    const journaled = enginesAgent({ store });
    runs.set("built-in journal, PostgreSQL", async () => {
      const result = await summary(journaled, `journal-${randomUUID()}`);
      check(result.status, result.calls, "built-in journal");
    });
    const inDbos = enginesAgent({ execution: DbosExecution.factory() });
    const workflow = DBOS.registerWorkflow(async () => summary(inDbos, DBOS.workflowID!), { name: WORKFLOW });
    DBOS.setConfig({
      name: "bench-engines",
      systemDatabaseUrl: DATABASE_URL,
      systemDatabaseSchemaName: dbosSchema,
      applicationVersion: "bench",
      logLevel: "error",
    });
    await DBOS.launch();
    runs.set("DBOS", async () => {
      const result = await (await DBOS.startWorkflow(workflow, { workflowID: `dbos-${randomUUID()}` })()).getResult();
      check(result.status, result.calls, "DBOS");
    });
    closers.push(async () => {
      await DBOS.shutdown();
      await store.close();
      await dropSchemas(schema, dbosSchema);
    });
  } else skipped.push(`no PostgreSQL at ${DATABASE_URL}: the journal and DBOS were not measured`);

  if (restateServerBinary() !== undefined) {
    const server: RestateServer = await startRestateServer();
    const inRestate = enginesAgent({ execution: RestateExecution.factory() });
    const service = restate.workflow({
      name: WORKFLOW,
      handlers: {
        run: (ctx: restate.WorkflowContext) => RestateExecution.run(ctx, () => summary(inRestate, ctx.key)),
      },
    });
    const port = await freePort();
    const endpoint = http2.createServer(
      restate.createEndpointHandler({ services: [service], logger: () => undefined }),
    );
    const sessions = new Set<http2.ServerHttp2Session>();
    endpoint.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    await new Promise<void>((resolve) => endpoint.listen(port, "127.0.0.1", resolve));
    await server.register(`http://127.0.0.1:${port}`);
    runs.set("Restate", async () => {
      const response = await fetch(`${server.ingressUrl}/${WORKFLOW}/restate-${randomUUID()}/run`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "null",
      });
      if (!response.ok) throw new Error(`engines bench, Restate: ${response.status}`);
      const result = (await response.json()) as { status: string; calls: number };
      check(result.status, result.calls, "Restate");
    });
    closers.push(async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => endpoint.close(() => resolve()));
      await server.stop();
    });
  } else skipped.push("no restate-server binary (@restatedev/restate-server): Restate was not measured");

  return {
    runs,
    skipped,
    close: async () => {
      for (const close of closers) await close();
    },
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const p90 = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
};

export default defineBenchmark({
  name: "engines",
  description: `ms per tool call of an ${ENGINE_CALLS}-call agent run on the built-in journal (PostgreSQL), inside DBOS (same PostgreSQL) and inside Restate, taken in turn in one run`,
  cases: () => [],
  async measure() {
    const setup = await setUp();
    const times = new Map<Engine, number[]>();
    try {
      for (const run of setup.runs.values()) for (let i = 0; i < WARM_UP; i++) await run();
      for (let i = 0; i < RUNS; i++) {
        for (const [engine, run] of setup.runs) {
          const began = performance.now();
          await run();
          times.set(engine, [...(times.get(engine) ?? []), performance.now() - began]);
        }
      }
    } finally {
      await setup.close();
    }
    const floor = median(times.get("no store (floor)") ?? [0]);
    const journal = times.get("built-in journal, PostgreSQL");
    const journalPerCall = journal === undefined ? undefined : median(journal) / ENGINE_CALLS;
    const rows: Measurement[] = [];
    for (const [engine, values] of times) {
      const perRun = median(values);
      rows.push({
        name: engine,
        "ms per run (median)": round(perRun, 2),
        "ms per run (p90)": round(p90(values), 2),
        "ms per tool call": round(perRun / ENGINE_CALLS, 3),
        "durable ms per call (over the floor)": round((perRun - floor) / ENGINE_CALLS, 3),
        "× journal per call": journalPerCall === undefined ? "—" : round(perRun / ENGINE_CALLS / journalPerCall, 1),
        ...(engine === "DBOS" || engine === "Restate" ? { "ms per engine step": round(perRun / ENGINE_STEPS, 3) } : {}),
      });
    }
    for (const reason of setup.skipped) rows.push({ name: "skipped", reason });
    return rows;
  },
  goals(_results, measurements) {
    const perCall = (name: string) => measurements.find((m) => m.name === name)?.["ms per tool call"];
    const goals: Goal[] = [];
    for (const engine of ["DBOS", "Restate"] as const) {
      const ms = perCall(engine);
      const journal = perCall("built-in journal, PostgreSQL");
      if (typeof ms !== "number" || typeof journal !== "number") continue;
      goals.push({
        goal: `G7: ms per tool call on ${engine} reported beside the built-in journal, same run`,
        measured: `${ms} ms against ${journal} ms on the journal (${(ms / journal).toFixed(1)}×)`,
        met: true,
      });
    }
    return goals;
  },
  notes: () => ({
    runs: RUNS,
    callsPerRun: ENGINE_CALLS,
    roundsPerRun: 2,
    engineStepsPerRun: ENGINE_STEPS,
    resultBytesPerCall: "about 2 KB",
  }),
});
