// A worker process of the durable-runs benchmark: works the queue until SIGTERM.
import { createRunQueue, PostgresStore } from "@needlework/postgres";
import { durableAgent } from "./durable-agent.js";

const { databaseUrl, schema, concurrency } = JSON.parse(process.env["NEEDLEWORK_BENCH_QUEUE"] ?? "{}") as {
  databaseUrl: string;
  schema: string;
  concurrency: number;
};
const store = new PostgresStore({ connectionString: databaseUrl, schema, maxConnections: concurrency + 4 });
const queue = createRunQueue({ store, agents: [durableAgent(store)], pollingIntervalSeconds: 0.5 });
await queue.work({ concurrency });
process.once(
  "SIGTERM",
  () =>
    void queue
      .stop({ timeoutMs: 1_000 })
      .then(() => store.close())
      .then(() => process.exit(0)),
);
process.send?.("ready");
