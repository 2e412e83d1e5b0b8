// A worker process of the durable-runs benchmark: works the queue until SIGTERM. `mode: "poll"` works
// it as createRunQueue did before it fetched as soon as a slot freed (one pg-boss `work` per slot,
// batchSize 1, sleeping the polling interval after every fetch), over the same agent and journal, so
// both figures come from one run on one machine.
import { createRunQueue, PostgresStore } from "@needlework/postgres";
import PgBoss from "pg-boss";
import { durableAgent } from "./durable-agent.js";

const { databaseUrl, schema, concurrency, mode } = JSON.parse(process.env["NEEDLEWORK_BENCH_QUEUE"] ?? "{}") as {
  databaseUrl: string;
  schema: string;
  concurrency: number;
  mode?: "fetch" | "poll";
};
const POLLING_SECONDS = 0.5;
const store = new PostgresStore({ connectionString: databaseUrl, schema, maxConnections: concurrency + 4 });
const agent = durableAgent(store);
let stop: () => Promise<void>;
if (mode === "poll") {
  const boss = new PgBoss({
    db: { executeSql: (text, values) => store.pool.query(text, values) },
    schema: `${schema}_queue`,
    schedule: false,
    supervise: false,
  });
  boss.on("error", () => undefined);
  await boss.start();
  for (let i = 0; i < concurrency; i++)
    await boss.work<{ runId: string }>(
      "needlework-runs",
      { batchSize: 1, pollingIntervalSeconds: POLLING_SECONDS },
      async ([job]) => (job ? { status: (await agent.resumeRun(job.data.runId)).status } : undefined),
    );
  stop = () => boss.stop({ graceful: true, timeout: 1_000, wait: true, close: true });
} else {
  const queue = createRunQueue({ store, agents: [agent], pollingIntervalSeconds: POLLING_SECONDS });
  await queue.work({ concurrency });
  stop = () => queue.stop({ timeoutMs: 1_000 });
}
process.once(
  "SIGTERM",
  () =>
    void stop()
      .then(() => store.close())
      .then(() => process.exit(0)),
);
process.send?.("ready");
