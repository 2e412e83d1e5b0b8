// Child process of the artifact resume test: runs an agent whose tool returns 10,000 rows over a
// PostgresStore (journal and artifacts), pages through the artifact, and hangs after some pages
// ("paged <n>" on stdout) until the test kills it with SIGKILL.
// node --conditions=@needlework/source --import tsx artifact-worker.ts <url> <schema> <leaseMs> <runId> <pages>
import "reflect-metadata";
import { pagingModel } from "../../workflows/test/artifacts/artifact-fixtures.js";
import { artifactAgent } from "./artifact-agent.js";
import { PostgresStore } from "../src/postgres-store.js";

const [connectionString, schema, leaseMs, runId, pages] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = new PostgresStore({ connectionString, schema, leaseMs: Number(leaseMs) });
await store.migrate();
const model = pagingModel([], {
  hangAfterPages: Number(pages),
  onHang: () => process.stdout.write(`paged ${pages}\n`),
});
await artifactAgent(store, store.artifacts, model).run("Read every order.", { runId });
