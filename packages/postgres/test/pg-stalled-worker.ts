// Child process of the PostgreSQL stalled-worker tests: runs the mailer over a PostgresStore, either
// directly ("run") or as a run queue's worker ("queue": it enqueues the run and works it).
// node --conditions=@needlework/source --import tsx pg-stalled-worker.ts <mode> <url> <schema> <leaseMs> <runId|bossSchema>
import { mailer } from "../../workflows/test/support/mailer.js";
import { report } from "../../workflows/test/support/stalled-worker.js";
import { PostgresStore } from "../src/postgres-store.js";
import { createRunQueue } from "../src/run-queue.js";

const [mode, connectionString, schema, leaseMs, last] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = new PostgresStore({ connectionString, schema, leaseMs: Number(leaseMs) });
await store.migrate();
const agent = mailer(store, `Email sent (worker ${process.pid}).`);
if (mode === "run") {
  await report(agent.run("Email c1.", { runId: last }));
  await store.close();
} else {
  const queue = createRunQueue({
    store,
    agents: [agent],
    bossSchema: last,
    runTimeoutSeconds: 30,
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 1,
  });
  const runId = await queue.enqueue("mailer", "Email c1.");
  process.stdout.write(`enqueued ${runId}\n`);
  await queue.work();
  // Works until the test kills it.
}
