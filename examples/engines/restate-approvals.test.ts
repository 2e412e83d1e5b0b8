// G4 on Restate, with a spawned worker and server, both killed by SIGKILL while an approval waits on
// the workflow's durable promise: the wait survives, a decision sent twice applies once, a decision
// for an ended run is refused, and records that do not verify (forged, another call, run or arguments,
// garbage), sent before the reviewer's, are refused without resolving anything: the wait goes on,
// also replayed after kill -9 (checked from the effects table the tools write in PostgreSQL).
// Decisions are signed as a user's approval service signs them: `signApprovalDecision` from
// @needlework/durable.
import { type ApprovalRecord, signApprovalDecision } from "@needlework/durable";
import { sendRestateDecision } from "@needlework/restate";
import { restateServerBinary } from "@needlework/restate/testing";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { cannotRun } from "../../test/support/cannot-run.js";
import { forkWorker, killWorker } from "./chaos.js";
import { APPROVAL_CALL, APPROVAL_SECRET, type ChaosRunResult, targetOf } from "./chaos-world.js";
import { restateSide } from "./engine-sides.js";
import { restateQuery, sleep, workerFixture } from "./test-support.js";
import { APPROVAL_WORKFLOW, CHAOS_WORKFLOW } from "./workers.js";

const NAME = "Restate approvals under kill -9 of the worker and of the server (spawned processes)";

/** The result of a run of `workflow`, once it has one. */
async function outputOf(ingressUrl: string, workflow: string, runId: string): Promise<ChaosRunResult> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await fetch(`${ingressUrl}/restate/workflow/${workflow}/${runId}/output`).catch(() => undefined);
    if (response?.status === 200) return (await response.json()) as ChaosRunResult;
    await response?.body?.cancel();
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end`);
    await sleep(200);
  }
}

/** Resolves once run `runId` of the approval workflow waits on its decision promise (its journal names it). */
async function waitsForDecision(adminUrl: string, runId: string): Promise<void> {
  const promise = `needlework:decision:${APPROVAL_CALL}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [invocation] = await restateQuery<{ id: string }>(
      adminUrl,
      `SELECT id FROM sys_invocation WHERE target_service_name = '${APPROVAL_WORKFLOW}' AND target_service_key = '${runId}' AND target_handler_name = 'run'`,
    );
    const entries = invocation
      ? await restateQuery<{ entry_lite_json: string | null }>(
          adminUrl,
          `SELECT entry_lite_json FROM sys_journal WHERE id = '${invocation.id}'`,
        )
      : [];
    if (entries.some((row) => row.entry_lite_json?.includes(`"key":"${promise}"`))) return;
    if (Date.now() > deadline) throw new Error("the run did not wait for its decision");
    await sleep(50);
  }
}

if (restateServerBinary() === undefined) {
  cannotRun(NAME, "no restate-server binary: run `npx -y pnpm@10 install` (@restatedev/restate-server)");
} else {
  describePostgres(NAME, () => {
    const fx = workerFixture("nw_restate_g4");

    /** A spawned server (killed after the test) and how to spawn its worker `generation` (tools pausing up to 40 ms). */
    async function restateWorld() {
      const side = await restateSide();
      fx.closeSide = () => side.close();
      const spawn = (generation: number) => {
        const worker = forkWorker("restate", {
          databaseUrl: DATABASE_URL,
          schema: fx.schema,
          generation,
          seed: generation + 1,
          maxDelayMs: 40,
          ...side.config,
        });
        fx.workers.push(worker);
        return worker;
      };
      return { side, spawn };
    }

    it("G4: the wait survives both kills, a decision sent twice applies once, one for an ended run is refused", {
      timeout: 180_000,
    }, async () => {
      const { tag, schema, pool, workers } = fx;
      const { side, spawn } = await restateWorld();
      await spawn(0).ready;
      await side.open();
      const runId = `approval-${tag}`;
      await side.start([runId], APPROVAL_WORKFLOW);
      await waitsForDecision(side.server.adminUrl, runId);
      await killWorker(workers[0]!);
      await side.crashServer!();
      await spawn(1).ready;

      const call = { runId, callId: APPROVAL_CALL, tool: "refund", arguments: { target: targetOf(runId) } };
      // The approval service signs with the agent's checkpointSecret, as a user's would.
      const record = signApprovalDecision(APPROVAL_SECRET, call, "approved");
      const send = () => sendRestateDecision(side.server.ingressUrl, APPROVAL_WORKFLOW, runId, APPROVAL_CALL, record);
      // Four at once: one resolves the promise, the others find it resolved (or lose the race to resolve it).
      expect(await Promise.all([send(), send(), send(), send()])).toEqual(["sent", "sent", "sent", "sent"]);
      // Killed again once the receipt has begun (so the approved refund's result is journaled): the
      // replay passes the recorded wait and the recorded refund (the journal read through the admin
      // API tells a waited-for call from one that was not).
      const begun = Date.now() + 60_000;
      while ((await pool.query(`SELECT 1 FROM "${schema}".effects WHERE tool = 'receipt'`)).rowCount === 0) {
        if (Date.now() > begun) throw new Error("the run did not go on after the approved refund");
        await sleep(5);
      }
      await killWorker(workers[1]!);
      await spawn(2).ready;
      const result = await outputOf(side.server.ingressUrl, APPROVAL_WORKFLOW, runId);
      expect(result.calls).toEqual([
        expect.objectContaining({ tool: "refund", status: "ok" }),
        expect.objectContaining({ tool: "receipt", status: expect.any(String) }),
      ]);
      const effects = await pool.query(`SELECT generation FROM "${schema}".effects WHERE tool = 'refund'`);
      expect(effects.rows).toEqual([{ generation: 1 }]);

      // Ended runs refuse decisions: the same decision sent again (no idempotency key: Restate would keep
      // the first answer, "sent", for a day), another call of this run, and a chaos run that ran to its end.
      expect(await send()).toBe("refused");
      const other = signApprovalDecision(APPROVAL_SECRET, { ...call, callId: "refund_1" }, "approved");
      expect(await sendRestateDecision(side.server.ingressUrl, APPROVAL_WORKFLOW, runId, "refund_1", other)).toBe(
        "refused",
      );
      const ended = `chaos-${tag}`;
      await side.start([ended]);
      await outputOf(side.server.ingressUrl, CHAOS_WORKFLOW, ended);
      expect(await sendRestateDecision(side.server.ingressUrl, CHAOS_WORKFLOW, ended, "charge_0", record)).toBe(
        "refused",
      );
      expect((await pool.query(`SELECT 1 FROM "${schema}".effects WHERE tool = 'refund'`)).rowCount).toBe(1);
    });

    it("G4: records that do not verify, sent before the reviewer's, are refused and the wait goes on, also in a replay after kill -9", {
      timeout: 180_000,
    }, async () => {
      const { tag, schema, pool, workers } = fx;
      const { side, spawn } = await restateWorld();
      await spawn(0).ready;
      await side.open();
      // One run decided in the worker that refused the forgeries; the other after that worker's kill -9.
      const live = `approval-live-${tag}`;
      const replayed = `approval-replayed-${tag}`;
      await side.start([live, replayed], APPROVAL_WORKFLOW);
      for (const runId of [live, replayed]) await waitsForDecision(side.server.adminUrl, runId);

      const { ingressUrl } = side.server;
      const refundCall = (runId: string) => ({
        runId,
        callId: APPROVAL_CALL,
        tool: "refund",
        arguments: { target: targetOf(runId) },
      });
      const decide = (runId: string, callId: string, record: ApprovalRecord) =>
        sendRestateDecision(ingressUrl, APPROVAL_WORKFLOW, runId, callId, record);
      const raw = async (runId: string, body: unknown) => {
        const response = await fetch(`${ingressUrl}/${APPROVAL_WORKFLOW}/${runId}/decide`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return response.json();
      };
      // What anyone who reaches the ingress can send before the reviewer decides: records signed with
      // another secret, or for another call, run or arguments, a valid record for a call the run does
      // not wait on, and garbage. Each is refused and resolves nothing.
      for (const runId of [live, replayed]) {
        const call = refundCall(runId);
        for (const forged of [
          signApprovalDecision(`${APPROVAL_SECRET}-forged`, call, "approved"),
          signApprovalDecision(APPROVAL_SECRET, { ...call, callId: "refund_9" }, "approved"),
          signApprovalDecision(APPROVAL_SECRET, refundCall(`${runId}-other`), "approved"),
          signApprovalDecision(APPROVAL_SECRET, { ...call, arguments: { target: "acct-999999" } }, "denied"),
          { decision: "approved" as const, signature: "0".repeat(64) },
        ])
          expect(await decide(runId, APPROVAL_CALL, forged)).toBe("refused");
        const notWaited = signApprovalDecision(APPROVAL_SECRET, { ...call, callId: "refund_9" }, "approved");
        expect(await decide(runId, "refund_9", notWaited)).toBe("refused");
        expect(await raw(runId, { callId: APPROVAL_CALL, record: "approved" })).toBe("refused");
        expect(await raw(runId, { callId: APPROVAL_CALL })).toBe("refused");
        expect(await raw(runId, "approved")).toBe("refused");
      }

      const approval = (runId: string) => signApprovalDecision(APPROVAL_SECRET, refundCall(runId), "approved");
      const completed = [
        expect.objectContaining({ tool: "refund", status: "ok" }),
        expect.objectContaining({ tool: "receipt", status: "ok" }),
      ];
      expect(await decide(live, APPROVAL_CALL, approval(live))).toBe("sent");
      const decided = await outputOf(ingressUrl, APPROVAL_WORKFLOW, live);
      expect(decided.status).toBe("completed");
      expect(decided.calls).toEqual(completed);

      // Killed -9 while the other run waits: the next worker replays it to the same open promise,
      // and the reviewer's decision, sent now, is the one it takes.
      await killWorker(workers[0]!);
      await spawn(1).ready;
      expect(await decide(replayed, APPROVAL_CALL, approval(replayed))).toBe("sent");
      const recovered = await outputOf(ingressUrl, APPROVAL_WORKFLOW, replayed);
      expect(recovered.status).toBe("completed");
      expect(recovered.calls).toEqual(completed);

      // Downstream: each refund ran once, the second in the worker that took its run up again.
      const effects = await pool.query(
        `SELECT run_id, generation FROM "${schema}".effects WHERE tool = 'refund' ORDER BY id`,
      );
      expect(effects.rows).toEqual([
        { run_id: live, generation: 0 },
        { run_id: replayed, generation: 1 },
      ]);
    });
  });
}
