// A durable run (PostgresStore) killed with SIGKILL during a round of remote calls: resumed in
// another process, the completed remote call is not repeated (the server counts its calls), and
// the one in flight, not idempotent, is OUTCOME_UNKNOWN, never sent again.
import { PostgresStore } from "@needlework/postgres";
import { afterEach, expect, it } from "vitest";
import { startWorker, type Worker } from "../../../workflows/test/support/stalled-worker.js";
import { DATABASE_URL, describePostgres, freshSchema } from "../../../postgres/src/test-database.js";
import { remoteAgent } from "./durable-agent.js";
import { type SdkServerEvents, startSdkHttpServer } from "./sdk-server.mjs";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describePostgres("a durable run of remote calls, killed with SIGKILL", () => {
  it("resumes without repeating the completed call; the call in flight is OUTCOME_UNKNOWN", async () => {
    const schema = freshSchema();
    const events: SdkServerEvents = { calls: new Map(), cancelled: [] };
    const waiting = new Promise<void>((resolve) => (events.waiting = resolve));
    const http = await startSdkHttpServer(events);
    cleanup.push(() => http.close());
    const runId = "run_remote_kill";
    const worker: Worker = startWorker(
      new URL("./durable-worker.ts", import.meta.url),
      [http.url, DATABASE_URL, schema, runId],
      {},
    );
    cleanup.push(async () => {
      worker.child.kill("SIGKILL");
      await worker.exited;
    });
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, leaseMs: 1_000 });
    cleanup.push(() => store.close());
    await worker.line("started");
    await waiting;
    // The echo's outcome is durable (committed within the journal's window) before the kill.
    await expect
      .poll(
        async () =>
          (await store.journal.read(runId))?.calls.find((c) => c.callId === "call_echo")?.outcome?.outcome.status,
        {
          timeout: 20_000,
          interval: 20,
        },
      )
      .toBe("ok");
    worker.child.kill("SIGKILL");
    await worker.exited;
    expect(events.calls.get("echo")).toBe(1);

    const { agent, server } = await remoteAgent(http.url, store);
    cleanup.push(() => server.close());
    // Polled: the killed worker's lease must lapse (leaseMs) before another process may take the run.
    await expect
      .poll(() => agent.resumeRun(runId).catch((e: unknown) => e), { timeout: 20_000, interval: 100 })
      .toMatchObject({ status: "completed_with_failures" });
    const run = await store.journal.read(runId);
    expect(run?.calls.map((c) => [c.callId, c.outcome?.outcome.status, c.outcome?.outcome.errorCode ?? null])).toEqual([
      ["call_echo", "ok", null],
      ["call_wait", "error", "OUTCOME_UNKNOWN"],
    ]);
    expect(events.calls.get("echo")).toBe(1);
    expect(events.calls.get("wait")).toBe(1);
  }, 60_000);
});
