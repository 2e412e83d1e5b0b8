import "reflect-metadata";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInspector } from "@needlework/inspector";
import { FileRunStore } from "@needlework/workflows";
import type { AgentStore } from "@needlework/workflows/durable";
import { seedRuns } from "./seed-runs.js";

// `pnpm demo:inspector`: two runs journaled into a store, then the run inspector over it. With
// DATABASE_URL the store is PostgreSQL (schema `needlework`, migrated first); otherwise a FileRunStore
// in a new temporary folder. PORT picks the port (default 4600).
let store: AgentStore & { close?(): Promise<void> };
const databaseUrl = process.env["DATABASE_URL"];
if (databaseUrl) {
  const { PostgresStore } = await import("@needlework/postgres");
  const postgres = new PostgresStore({ connectionString: databaseUrl });
  await postgres.migrate();
  store = postgres;
} else store = new FileRunStore(mkdtempSync(join(tmpdir(), "needlework-runs-")));

const { sync, refund } = await seedRuns(store);
const inspector = await startInspector({ store, port: Number(process.env["PORT"] ?? 4600) });
console.log(`journaled: ${sync} (the CRM sync) and ${refund} (a refund awaiting approval)`);
console.log(`needlework inspector: open ${inspector.url}  (Ctrl+C to stop)`);
const stop = async () => {
  await inspector.close();
  await store.close?.();
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
