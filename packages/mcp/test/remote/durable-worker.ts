// Child process of the durable remote-tools test, killed with SIGKILL mid-round:
// node --conditions=@needlework/source --import tsx durable-worker.ts <url> <databaseUrl> <schema> <runId>
import { PostgresStore } from "@needlework/postgres";
import { remoteAgent } from "./durable-agent.js";

const [url, connectionString, schema, runId] = process.argv.slice(2) as [string, string, string, string];
const store = new PostgresStore({ connectionString, schema, leaseMs: 1_000 });
await store.migrate();
const { agent } = await remoteAgent(url, store);
process.stdout.write("started\n");
await agent.run("Do both.", { runId });
