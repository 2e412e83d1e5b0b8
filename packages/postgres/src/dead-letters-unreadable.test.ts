// Issue 46: one dead letter the store's codec cannot open (written under another key) never fails a
// whole `store.deadLetters.list()`: it is listed as unreadable (the file store's `read()` also reports
// it as skipped), the others are listed as written, and it is never replayed.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  aesGcmCodec,
  type AgentStore,
  type DeadLetterEntry,
  FileRunStore,
  type ManagedDeadLetterQueue,
} from "@needlework/durable";
import { PostgresStore } from "./postgres-store.js";
import { afterAll, describe, expect, it } from "vitest";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const entry = (tool: string): DeadLetterEntry => ({
  runId: `run_${tool}`,
  agent: "crm-sync",
  tool,
  arguments: { contactId: "c1" },
  errorCode: "FORBIDDEN",
  callIds: ["c1", "c2"],
  outcomes: [{ status: "error" }],
  time: "2026-11-23T10:00:00.000Z",
  reason: "Failed twice with FORBIDDEN.",
});

const keyA = aesGcmCodec(randomBytes(32));
const keyB = aesGcmCodec(randomBytes(32));

/** Writes "first" under key A and "second" under key B; lists through the store with key B. */
async function listMixed(open: (codec: ReturnType<typeof aesGcmCodec>) => AgentStore) {
  await open(keyA).deadLetters.append(entry("first"));
  const store = open(keyB);
  await store.deadLetters.append(entry("second"));
  const queue = store.deadLetters as ManagedDeadLetterQueue & {
    replay(id: string, handler: () => Promise<void>): Promise<boolean>;
  };
  const listed = await queue.list();
  let ran = 0;
  const replayed = await queue.replay(listed[0]!.id, async () => void ran++);
  return { listed, replayed, ran, store };
}

function expectMixed(result: Awaited<ReturnType<typeof listMixed>>) {
  expect(result.listed).toHaveLength(2);
  expect(result.listed[0]).toMatchObject({ unreadable: true, errorCode: "FORBIDDEN", arguments: undefined });
  expect(result.listed[1]).toMatchObject({ tool: "second", arguments: { contactId: "c1" } });
  expect(result.listed[1]!.unreadable).toBeUndefined();
  expect(result.replayed).toBe(false);
  expect(result.ran).toBe(0);
}

describe("an unreadable dead letter in a file store", () => {
  const directory = mkdtempSync(join(tmpdir(), "nw-unreadable-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is listed as unreadable; the list answers; read() reports it skipped; it is never replayed", async () => {
    const result = await listMixed((codec) => new FileRunStore(directory, { codec }));
    expectMixed(result);
    const store = result.store as FileRunStore;
    const { entries, skipped } = await store.deadLetters.read();
    expect(entries.map((e) => e.tool)).toEqual(["second"]);
    expect(skipped).toEqual([
      expect.objectContaining({ line: 1, torn: false, text: expect.stringMatching(/unreadable/) }),
    ]);
  });
});

describePostgres("an unreadable dead letter in a PostgreSQL store", () => {
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it("is listed as unreadable; the list answers; it is never replayed (and stays open)", async () => {
    const schema = freshSchema();
    const open = (codec: ReturnType<typeof aesGcmCodec>) => {
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema, codec });
      stores.push(store);
      return store;
    };
    await open(keyA).migrate();
    const result = await listMixed(open);
    expectMixed(result);
    const open_ = await (result.store as PostgresStore).deadLetters.list({ acknowledged: false });
    expect(open_).toHaveLength(2);
  });
});
