import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunStore, InMemoryRunStore } from "@needlework/durable";
import { durableExecutionContract, journalExecutionHarness } from "@needlework/durable/testing";
import { afterEach } from "vitest";

// The built-in journal as a DurableExecution, held to the rules every engine keeps, through the
// published entry a third-party engine adapter uses.
const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

durableExecutionContract("built-in journal, in memory", async () =>
  journalExecutionHarness(new InMemoryRunStore().journal),
);

durableExecutionContract("built-in journal, FileRunStore", async () => {
  const directory = await mkdtemp(join(tmpdir(), "needlework-execution-"));
  directories.push(directory);
  return journalExecutionHarness(new FileRunStore(directory).journal);
});
