import { durableExecutionContract, journalExecutionHarness } from "@needlework/durable/testing";
import { afterEach } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

// The built-in journal over PostgreSQL as a DurableExecution: the rules every engine keeps.
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describePostgres("PostgresStore journal", () => {
  durableExecutionContract("built-in journal, PostgresStore", async () => {
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: freshSchema(), maxConnections: 4 });
    stores.push(store);
    await store.migrate();
    return journalExecutionHarness(store.journal);
  });
});
