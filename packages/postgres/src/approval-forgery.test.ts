import { afterEach } from "vitest";
import { approvalForgeryContract } from "../../workflows/test/approval-forgery-contract.js";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
function open(schema: string): PostgresStore {
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 2 });
  stores.push(store);
  return store;
}

describePostgres("forged approvals: PostgresStore", () => {
  // run_calls keeps a call start's decision record (migration 5): an approved call cut off by a
  // crash runs again on resumeRun with its proof, as on the other stores.
  approvalForgeryContract(async () => {
    const schema = freshSchema();
    const first = open(schema);
    await first.migrate();
    return { first, second: open(schema) };
  });
});
