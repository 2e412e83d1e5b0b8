/**
 * `@needlework/durable/testing`: the contract suites every run store passes, for a store written
 * anywhere (the built-in in-memory and file stores, `@needlework/postgres`, or your own). Call a
 * suite inside a vitest test file with a function that opens two handles on one fresh store; the
 * suites define `describe`/`it` blocks with vitest, an optional peer dependency of this entry only.
 *
 * @example
 * ```ts
 * import { runStoreContract } from "@needlework/durable/testing";
 * import { RedisStore } from "../src/redis-store.js";
 *
 * runStoreContract("RedisStore", async ({ leaseMs }) => ({
 *   first: new RedisStore({ url, leaseMs }),
 *   second: new RedisStore({ url, leaseMs }),
 * }));
 * ```
 * @packageDocumentation
 */
import { describe } from "vitest";
import { deadLetterContract } from "./testing/dead-letter-contract.js";
import type { OpenStores } from "./testing/fixtures.js";
import { journalRecordsContract, runListContract } from "./testing/journal-contract.js";
import { leaseContract } from "./testing/lease-contract.js";
import { cancelContract } from "./testing/cancel-contract.js";

export { cancelContract } from "./testing/cancel-contract.js";
export { artifactStoreContract, type OpenArtifactStore } from "./testing/artifact-contract.js";
export { deadLetterContract } from "./testing/dead-letter-contract.js";
export { durableExecutionContract } from "./testing/execution-contract.js";
export {
  type DurableExecutionHarness,
  journalExecutionHarness,
  type OpenDurableExecution,
} from "./testing/execution-harness.js";
export { LONG_LEASE_MS, type OpenStores, SHORT_LEASE_MS } from "./testing/fixtures.js";
export { journalRecordsContract, runListContract } from "./testing/journal-contract.js";
export { leaseContract } from "./testing/lease-contract.js";

/**
 * Every suite, under one `describe` named `name`: journal records, the run list, leases and
 * fencing, cancel requests, dead letters and checkpoint claims. `open` is called once per test and must return
 * handles on a fresh, empty store whose leases last `leaseMs`.
 *
 * @example
 * ```ts
 * runStoreContract("InMemoryRunStore", async ({ leaseMs }) => {
 *   const store = new InMemoryRunStore({ leaseMs });
 *   return { first: store, second: store };
 * });
 * ```
 */
export function runStoreContract(name: string, open: OpenStores): void {
  describe(`${name} (run store contract)`, () => {
    journalRecordsContract(open);
    runListContract(open);
    leaseContract(open);
    cancelContract(open);
    deadLetterContract(open);
  });
}
