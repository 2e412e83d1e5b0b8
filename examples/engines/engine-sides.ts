// Test support (not exported): how the engines' chaos runs start, read and crash each engine's side
// that is not the worker: DBOS's client on its system database, Restate's server (the npm binary).
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { freePort, type RestateServer, startRestateServer } from "@needlework/restate/testing";
import pg from "pg";
import type { ChaosRunResult } from "./chaos-world.js";
import { CHAOS_QUEUE, CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

/** `databaseUrl` with another database name. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** How a run of an engine is started and read, whichever engine. */
export interface EngineSide {
  readonly config: Partial<EngineWorkerConfig>;
  /** Once, after the first worker is ready: connects, registers what needs it. */
  open(): Promise<void>;
  /** Starts runs of `workflow` (default: the chaos run). */
  start(runIds: readonly string[], workflow?: string): Promise<void>;
  /** The runs not finished yet. */
  unfinished(runIds: readonly string[]): Promise<readonly string[]>;
  /** A run's result as two readers read it. */
  read(runId: string): Promise<(ChaosRunResult | undefined)[]>;
  /** Why runs are not finished, as the engine says (Restate: each open invocation's status and retries). */
  diagnose?(runIds: readonly string[]): Promise<readonly string[]>;
  /** Kills the server with SIGKILL and starts it again on its journal (Restate), or nothing. */
  crashServer?(): Promise<void>;
  close(): Promise<void>;
}

/** DBOS's side: a `DBOSClient` enqueues the runs on the chaos queue and reads their results. */
export function dbosSide(
  databaseUrl: string,
  tag: string,
  options: { readonly maxRecoveryAttempts?: number } = {},
): EngineSide & { readonly client: () => DBOSClient } {
  const systemDatabaseUrl = withDatabase(databaseUrl, "needlework_dbos");
  const schema = `dbos_${tag}`;
  let client: DBOSClient | undefined;
  const maxRecoveryAttempts = options.maxRecoveryAttempts ?? 1_000;
  return {
    config: { dbos: { systemDatabaseUrl, schema, applicationVersion: "chaos-v1", maxRecoveryAttempts } },
    client: () => client!,
    async open() {
      client = await DBOSClient.create({ systemDatabaseUrl, systemDatabaseSchemaName: schema });
    },
    async start(runIds, workflow = CHAOS_WORKFLOW) {
      for (const workflowID of runIds)
        await client!.enqueue(
          { queueName: CHAOS_QUEUE, workflowName: workflow, workflowID, appVersion: "chaos-v1" },
          "",
        );
    },
    async unfinished(runIds) {
      const done = await client!.listWorkflows({ workflowIDs: [...runIds], status: "SUCCESS" });
      const finished = new Set(done.map((run) => run.workflowID));
      return runIds.filter((id) => !finished.has(id));
    },
    async read(runId) {
      const first = (await client!.retrieveWorkflow<ChaosRunResult>(runId).getResult()) ?? undefined;
      const second = (await client!.getWorkflow(runId))?.output as ChaosRunResult | undefined;
      return [first, second];
    },
    async close() {
      await client?.destroy();
      const admin = new pg.Client({ connectionString: systemDatabaseUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

/** Restate's side: a server of its own (free ports, a temporary journal), the runs sent through its ingress. */
export async function restateSide(): Promise<EngineSide & { readonly server: RestateServer }> {
  const port = await freePort();
  const server: RestateServer = await startRestateServer();
  const output = (runId: string, workflow = CHAOS_WORKFLOW) =>
    `${server.ingressUrl}/restate/workflow/${workflow}/${runId}/output`;
  return {
    config: { restate: { port, adminUrl: server.adminUrl } },
    server,
    async open() {
      await server.register(`http://127.0.0.1:${port}`);
    },
    async start(runIds, workflow = CHAOS_WORKFLOW) {
      for (const runId of runIds) {
        const response = await fetch(`${server.ingressUrl}/${workflow}/${runId}/run/send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(""),
        });
        if (!response.ok) throw new Error(`Restate did not take run ${runId} (${response.status})`);
      }
    },
    async unfinished(runIds) {
      const open: string[] = [];
      for (const runId of runIds) {
        const response = await fetch(output(runId)).catch(() => undefined);
        if (response?.status !== 200) open.push(runId);
        await response?.body?.cancel();
      }
      return open;
    },
    async read(runId) {
      const first = await fetch(output(runId)).then((r) => r.json() as Promise<ChaosRunResult>);
      const attached = `${server.ingressUrl}/restate/workflow/${CHAOS_WORKFLOW}/${runId}/attach`;
      const second = await fetch(attached).then((r) => r.json() as Promise<ChaosRunResult>);
      return [first, second];
    },
    async diagnose(runIds) {
      const response = await fetch(`${server.adminUrl}/query`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          query: `SELECT target_service_key AS key, status, retry_count AS retries, last_failure AS failure FROM sys_invocation WHERE target_handler_name = 'run' AND status != 'completed'`,
        }),
      });
      if (!response.ok) return [`the admin API answered ${response.status}`];
      const { rows } = (await response.json()) as {
        rows: { key: string; status: string; retries: number; failure: string | null }[];
      };
      return rows
        .filter((row) => runIds.includes(row.key))
        .map((row) => `${row.key}: ${row.status}, ${row.retries} retries${row.failure ? ` (${row.failure})` : ""}`);
    },
    async crashServer() {
      await server.restart();
    },
    async close() {
      await server.stop();
    },
  };
}
