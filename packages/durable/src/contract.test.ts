import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { runStoreContract } from "@needlework/durable/testing";
import { FileRunStore, InMemoryRunStore, aesGcmCodec } from "@needlework/durable";

// The published suites against the built-in stores, imported by package name as a third party would.
const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});
async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "needlework-contract-"));
  directories.push(directory);
  return directory;
}

runStoreContract("InMemoryRunStore", async ({ leaseMs }) => {
  const store = new InMemoryRunStore({ leaseMs });
  return { first: store, second: store };
});

runStoreContract("FileRunStore", async ({ leaseMs }) => {
  const directory = await freshDirectory();
  return { first: new FileRunStore(directory, { leaseMs }), second: new FileRunStore(directory, { leaseMs }) };
});

const key = randomBytes(32);
runStoreContract("FileRunStore with aesGcmCodec", async ({ leaseMs }) => {
  const directory = await freshDirectory();
  const codec = aesGcmCodec(key);
  return {
    first: new FileRunStore(directory, { leaseMs, codec }),
    second: new FileRunStore(directory, { leaseMs, codec }),
  };
});
