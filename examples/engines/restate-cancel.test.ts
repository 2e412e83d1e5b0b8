// Cancelling a run inside Restate, the engine's own way (the admin API's cancel of the run's
// invocation), with a spawned server and worker: a run waiting for an approval ends at once, its gated
// call never runs, and a decision sent after the cancel is refused (the run has ended); a run cancelled
// while a call is in flight starts no other call.
import { randomBytes } from "node:crypto";
import { signApprovalDecision } from "@needlework/durable";
import { sendRestateDecision } from "@needlework/restate";
import { restateServerBinary } from "@needlework/restate/testing";
import pg from "pg";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { cannotRun } from "../../test/support/cannot-run.js";
import { forkWorker, killWorker, type Worker } from "./chaos.js";
import { APPROVAL_CALL, APPROVAL_SECRET, createEffectsTable, targetOf } from "./chaos-world.js";
import { restateSide } from "./engine-sides.js";
import { restateQuery, sleep, until } from "./test-support.js";
import { APPROVAL_WORKFLOW, CHAOS_WORKFLOW } from "./workers.js";

const NAME = "Restate: cancelling a run through the admin API (spawned server and worker)";

/** The `run` invocation of `runId` of `workflow`: its id and status, once Restate lists it. */
function invocationOf(adminUrl: string, workflow: string, runId: string) {
  return restateQuery<{ id: string; status: string }>(
    adminUrl,
    `SELECT id, status FROM sys_invocation WHERE target_service_name = '${workflow}' AND target_service_key = '${runId}' AND target_handler_name = 'run'`,
  ).then((rows) => rows[0]);
}

/** Cancels invocation `id` through the admin API, then waits for it to complete. */
async function cancel(adminUrl: string, workflow: string, runId: string, id: string): Promise<void> {
  const response = await fetch(`${adminUrl}/invocations/${encodeURIComponent(id)}/cancel`, { method: "PATCH" });
  expect(response.status).toBeLessThan(300);
  await until("the run ends", async () => {
    const row = await invocationOf(adminUrl, workflow, runId);
    return row?.status === "completed" ? row : undefined;
  });
}

/** A spawned server and worker (tools pausing up to `maxDelayMs`), the effects table; all gone after `body`. */
async function withRestate(
  maxDelayMs: number,
  body: (world: {
    side: Awaited<ReturnType<typeof restateSide>>;
    pool: pg.Pool;
    schema: string;
    tag: string;
  }) => Promise<void>,
): Promise<void> {
  const tag = randomBytes(5).toString("hex");
  const schema = `nw_restate_cancel_${tag}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  await createEffectsTable(pool, schema);
  const side = await restateSide();
  const workers: Worker[] = [];
  try {
    const worker = forkWorker("restate", {
      databaseUrl: DATABASE_URL,
      schema,
      generation: 0,
      seed: 1,
      maxDelayMs,
      ...side.config,
    });
    workers.push(worker);
    await worker.ready;
    await side.open();
    await body({ side, pool, schema, tag });
  } finally {
    for (const worker of workers) await killWorker(worker);
    await side.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

if (restateServerBinary() === undefined) {
  cannotRun(NAME, "no restate-server binary: run `npx -y pnpm@10 install` (@restatedev/restate-server)");
} else {
  describePostgres(NAME, () => {
    it(
      "a run waiting for its approval ends when cancelled; its call never runs; a later decision is refused",
      {
        timeout: 120_000,
      },
      () =>
        withRestate(40, async ({ side, pool, schema, tag }) => {
          const runId = `cancel-${tag}`;
          await side.start([runId], APPROVAL_WORKFLOW);
          const { adminUrl, ingressUrl } = side.server;
          const promise = `needlework:decision:${APPROVAL_CALL}`;
          const id = await until("the run waits for its decision", async () => {
            const row = await invocationOf(adminUrl, APPROVAL_WORKFLOW, runId);
            if (row === undefined) return undefined;
            const entries = await restateQuery<{ entry_lite_json: string | null }>(
              adminUrl,
              `SELECT entry_lite_json FROM sys_journal WHERE id = '${row.id}'`,
            );
            return entries.some((entry) => entry.entry_lite_json?.includes(`"key":"${promise}"`)) ? row.id : undefined;
          });

          // The engine's cancel: the waiting promise fails with Restate's cancellation, the run ends.
          await cancel(adminUrl, APPROVAL_WORKFLOW, runId, id);
          const output = await fetch(`${ingressUrl}/restate/workflow/${APPROVAL_WORKFLOW}/${runId}/output`);
          expect(output.ok).toBe(false);
          expect(await output.text()).toMatch(/cancel/i);

          const call = { runId, callId: APPROVAL_CALL, tool: "refund", arguments: { target: targetOf(runId) } };
          const record = signApprovalDecision(APPROVAL_SECRET, call, "approved");
          expect(await sendRestateDecision(ingressUrl, APPROVAL_WORKFLOW, runId, APPROVAL_CALL, record)).toBe(
            "refused",
          );
          await sleep(500);
          expect((await pool.query(`SELECT tool FROM "${schema}".effects`)).rows).toEqual([]);
        }),
    );

    it("a run cancelled while a tool call is in flight starts no other call", { timeout: 120_000 }, () =>
      withRestate(1_500, async ({ side, pool, schema, tag }) => {
        const { adminUrl, ingressUrl } = side.server;
        const effects = async (runId: string) =>
          (
            await pool.query<{ tool: string; finished: boolean }>(
              `SELECT tool, finished FROM "${schema}".effects WHERE run_id = $1 ORDER BY id`,
              [runId],
            )
          ).rows;
        // A tool pauses a random time (up to 1.5 s) after its effect: a try whose first call answered
        // before the cancel landed proves nothing, and the next run is tried (three at most).
        for (let attempt = 0; attempt < 3; attempt++) {
          const runId = `cancel-mid-${tag}-${attempt}`;
          await side.start([runId], CHAOS_WORKFLOW);
          const { id } = await until("Restate lists the run", () => invocationOf(adminUrl, CHAOS_WORKFLOW, runId));
          // The first round's first call has applied its effect and not answered.
          await until("a call is in flight", async () =>
            (await effects(runId)).some((row) => !row.finished) ? true : undefined,
          );
          await cancel(adminUrl, CHAOS_WORKFLOW, runId, id);
          const landed = (await effects(runId)).some((row) => row.tool === "lookup" && !row.finished);
          if (!landed) continue;
          const output = await fetch(`${ingressUrl}/restate/workflow/${CHAOS_WORKFLOW}/${runId}/output`);
          expect(output.ok).toBe(false);
          // Long enough for every call of the run to have started, had the run gone on (tools pause up to 3 s).
          await sleep(8_000);
          expect((await effects(runId)).map((row) => row.tool)).toEqual(["lookup"]);
          return;
        }
        throw new Error("the cancel never landed while the first call was in flight");
      }),
    );
  });
}
