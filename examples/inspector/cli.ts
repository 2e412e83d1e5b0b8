import "reflect-metadata";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInspector } from "@needlework/inspector";
import { FileRunStore } from "@needlework/workflows";
import type { AgentStore } from "@needlework/workflows/durable";
import { seedRuns } from "./seed-runs.js";

// `pnpm demo:inspector`: four runs journaled into a store, then the run inspector over it, given the
// agents so the page can act: approve the refund, resume the follow-up whose worker died, replay the
// merge in the dead letters. With DATABASE_URL the store is PostgreSQL (schema `needlework`, migrated
// first); otherwise a FileRunStore in a new temporary folder. PORT picks the port (default 4600).
const port = Number(process.env["PORT"] ?? 4600);
let store: AgentStore & { close?(): Promise<void> };
const databaseUrl = process.env["DATABASE_URL"];
if (databaseUrl) {
  const { PostgresStore } = await import("@needlework/postgres");
  const postgres = new PostgresStore({ connectionString: databaseUrl });
  await postgres.migrate();
  store = postgres;
} else store = new FileRunStore(mkdtempSync(join(tmpdir(), "needlework-runs-")));

const seeded = await seedRuns(store);
let inspector: Awaited<ReturnType<typeof startInspector>>;
try {
  inspector = await startInspector({ store, port, agents: seeded.agents });
} catch (error) {
  if ((error as { code?: unknown }).code !== "PORT_IN_USE") throw error;
  console.error(`Port ${port} is already in use. Run it on another: PORT=4601 pnpm demo:inspector`);
  await store.close?.();
  process.exit(1);
}
console.log(`Four runs, written the way your agents would write them:
  ${seeded.sync}  a CRM sync: a refused HubSpot write, a retried Salesforce task, the honest answer
  ${seeded.refund}  a refund of ORD-1042 waiting for your approval: approve or deny it on its page
  ${seeded.poisoned}  a contact merge that failed twice with CONFLICT: see it in Dead letters, then Replay it
  ${seeded.interrupted}  a follow-up whose worker died mid-call (interrupted): Resume it on its page`);
console.log(`needlework inspector: open ${inspector.url}  (Ctrl+C to stop)`);
const stop = async () => {
  await inspector.close();
  await store.close?.();
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
