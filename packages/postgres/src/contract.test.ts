import { randomBytes } from "node:crypto";
import { aesGcmCodec } from "@needlework/durable";
import { runStoreContract } from "@needlework/durable/testing";
import { afterEach } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

// The run-store contract suites, from the published entry a third-party store uses, against two
// stores (two pools) on one fresh schema per test: two processes sharing one database.
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function pair(options: { readonly leaseMs: number; readonly codec?: ReturnType<typeof aesGcmCodec> }) {
  return async () => {
    const schema = freshSchema();
    const open = () => {
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 4, ...options });
      stores.push(store);
      return store;
    };
    const first = open();
    await first.migrate();
    return { first, second: open() };
  };
}

const key = randomBytes(32);
describePostgres("PostgresStore", () => {
  runStoreContract("PostgresStore", ({ leaseMs }) => pair({ leaseMs })());
  runStoreContract("PostgresStore with aesGcmCodec", ({ leaseMs }) => pair({ leaseMs, codec: aesGcmCodec(key) })());
});
