// A crash loop DBOS's own limit does not end: spawned workers that die (SIGKILL) after DBOS's queue
// has claimed the run and before it dispatches it, launch after launch (a process that dies loading a
// poison run). DBOS counts each claim but checks maxRecoveryAttempts only at dispatch, which never
// comes; deadLetterExhaustedRuns(), called before DBOS.launch() with a DBOSClient, stops the run at
// the launch after its attempts are spent: one dead letter, and no launch claims it again. The limit
// is the workflow's registered maxRecoveryAttempts (the workers pass none to the call).
import { DBOS } from "@dbos-inc/dbos-sdk";
import { deadLetterExhaustedRuns } from "@needlework/dbos";
import { PostgresStore } from "@needlework/postgres";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { forkWorker, killWorker, type Worker } from "./chaos.js";
import { dbosSide } from "./engine-sides.js";
import { sleep, workerFixture } from "./test-support.js";
import { CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

const fx = workerFixture("nw_dbos_claim");

/** How one launch ended: the worker died by itself (on the claim), or lived on past `settleMs`. */
async function launch(worker: Worker, settleMs: number): Promise<"died" | "lived"> {
  const died = worker.exited.then(() => "died" as const);
  const ready = worker.ready.then(
    () => "ready" as const,
    () => "died" as const,
  );
  if ((await Promise.race([ready, died])) === "died") return "died";
  const lived = sleep(settleMs).then(() => "lived" as const);
  return Promise.race([died, lived]);
}

describePostgres("DBOS: a worker that dies between the claim and the dispatch (spawned, SIGKILL)", () => {
  it("refuses to check before the workflows are registered (each run's limit is its workflow's registered one)", async () => {
    const side = dbosSide(DATABASE_URL, fx.tag);
    fx.closeSide = () => side.close();
    await side.open();
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: `${fx.schema}_store` });
    await store.migrate();
    const check = (workflowName?: string) =>
      deadLetterExhaustedRuns({
        deadLetters: store.deadLetters,
        agent: "chaos",
        via: side.client(),
        ...(workflowName === undefined ? {} : { workflowName }),
      });
    try {
      // This process has registered no DBOS workflow: no limit to read, so no silent "nothing exhausted".
      await expect(check()).rejects.toThrow(/no workflow is registered in this process/);
      DBOS.registerWorkflow(async (input: string) => input, { name: "other_run", maxRecoveryAttempts: 3 });
      await expect(check(CHAOS_WORKFLOW)).rejects.toThrow(`no workflow named "${CHAOS_WORKFLOW}" is registered`);
      // Registered: it reads the system database (nothing pending there) and letters nothing.
      expect(await check("other_run")).toEqual([]);
    } finally {
      await store.pool.query(`DROP SCHEMA IF EXISTS "${fx.schema}_store" CASCADE`);
      await store.close();
    }
  });

  it("ends in one dead letter after maxRecoveryAttempts, and no later launch claims the run", {
    timeout: 300_000,
  }, async () => {
    const maxRecoveryAttempts = 2;
    const side = dbosSide(DATABASE_URL, fx.tag, { maxRecoveryAttempts });
    fx.closeSide = () => side.close();
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: `${fx.schema}_store` });
    await store.migrate();
    const config = (generation: number): EngineWorkerConfig => ({
      databaseUrl: DATABASE_URL,
      schema: fx.schema,
      generation,
      seed: generation + 1,
      maxDelayMs: 40,
      ...side.config,
      dbos: { ...side.config.dbos!, deadLetterSchema: `${fx.schema}_store`, dieOnClaim: true },
    });
    const runId = `claim-crash-${fx.tag}`;
    const lettered = async () =>
      (await store.deadLetters.list()).filter((letter) => letter.runId === runId).map((letter) => letter.errorCode);
    try {
      // The first worker launches with nothing queued; the run is enqueued once it is up, and it dies on the claim.
      const first = forkWorker("dbos", config(0));
      fx.workers.push(first);
      await first.ready;
      await side.open();
      await side.start([runId], CHAOS_WORKFLOW);
      await first.exited;
      const claims = [(await side.client().getWorkflow(runId))?.recoveryAttempts];
      let launches = 1;
      // Every later launch recovers the run and claims it again, until a launch stops it before the claim.
      while ((await lettered()).length === 0) {
        expect(launches, `launches before the crash loop is stopped (attempts ${claims.join(", ")})`).toBeLessThan(
          maxRecoveryAttempts + 6,
        );
        const worker = forkWorker("dbos", config(launches));
        fx.workers.push(worker);
        launches++;
        const ended = await launch(worker, 3_000);
        claims.push((await side.client().getWorkflow(runId))?.recoveryAttempts);
        await killWorker(worker);
        if (ended === "lived") break;
      }
      expect(await lettered()).toEqual(["RECOVERY_ATTEMPTS_EXCEEDED"]);
      const stopped = await side.client().getWorkflow(runId);
      // Two more launches: no second letter, no claim (the attempts stay), nothing ran.
      for (const generation of [launches, launches + 1]) {
        const worker = forkWorker("dbos", config(generation));
        fx.workers.push(worker);
        expect(await launch(worker, 3_000)).toBe("lived");
        await killWorker(worker);
      }
      expect(await lettered()).toEqual(["RECOVERY_ATTEMPTS_EXCEEDED"]);
      const run = await side.client().getWorkflow(runId);
      // DBOS's claims 1 to limit + 2 each killed a process; the next launch cancelled the run before its claim.
      expect(claims).toEqual([1, 2, 3, 4, 4]);
      expect(run?.status).toBe("CANCELLED");
      expect(stopped?.status).toBe("CANCELLED");
      expect(run?.recoveryAttempts).toBe(stopped?.recoveryAttempts);
      expect((await fx.pool.query(`SELECT 1 FROM "${fx.schema}".effects`)).rowCount).toBe(0);
      console.log(
        `DBOS claim crash loop: ${launches} launches (attempts ${claims.join(", ")}), then one dead letter; DBOS status ${run?.status}`,
      );
    } finally {
      await store.pool.query(`DROP SCHEMA IF EXISTS "${fx.schema}_store" CASCADE`);
      await store.close();
    }
  });
});
