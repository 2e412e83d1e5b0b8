import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DeadLetterEntry, InMemoryDeadLetterQueue } from "./dead-letter-queue.js";
import { FileDeadLetterQueue } from "./file-dead-letter-queue.js";

const entry = (tool: string): DeadLetterEntry => ({
  runId: "run-1",
  agent: "crm-sync",
  tool,
  arguments: { contactId: "c1", big: 10n as unknown },
  errorCode: "CONFLICT",
  callIds: ["call_1_1"],
  outcomes: [{ status: "error", error_code: "CONFLICT" }],
  time: "2025-01-01T00:00:00.000Z",
  reason: "Failed 3 times with CONFLICT for the same arguments.",
});

describe("InMemoryDeadLetterQueue", () => {
  it("lists what was appended, oldest first, as a copy", async () => {
    const queue = new InMemoryDeadLetterQueue();
    await queue.append(entry("a"));
    await queue.append(entry("b"));
    const listed = await queue.list();
    expect(listed.map((e) => e.tool)).toEqual(["a", "b"]);
    (listed as unknown as DeadLetterEntry[]).pop();
    expect(await queue.list()).toHaveLength(2);
  });

  it("gives each letter an id, filters and pages, and acknowledges a letter once", async () => {
    const queue = new InMemoryDeadLetterQueue();
    for (const tool of ["a", "b", "c"]) await queue.append(entry(tool));
    expect((await queue.list()).map((l) => l.id)).toEqual(["1", "2", "3"]);
    expect(await queue.acknowledge("2")).toBe(true);
    expect(await queue.acknowledge("2")).toBe(false);
    expect(await queue.acknowledge("9")).toBe(false);
    expect((await queue.list({ acknowledged: false })).map((l) => l.tool)).toEqual(["a", "c"]);
    expect((await queue.list({ acknowledged: true }))[0]?.acknowledgedAt).toMatch(/^\d{4}-/);
    expect((await queue.list({ offset: 1, limit: 1 })).map((l) => l.tool)).toEqual(["b"]);
  });
});

describe("FileDeadLetterQueue", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "nw-dlq-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("ids letters by line, acknowledges each once (kept beside the file), and another instance sees it", async () => {
    const path = join(dir, "dead.jsonl");
    const queue = new FileDeadLetterQueue(path);
    for (const tool of ["a", "b", "c"]) await queue.append(entry(tool));
    // A torn line in the middle keeps the ids of the letters after it.
    await writeFile(path, `${(await readFile(path, "utf8")).replace("\n", '\n{"torn\n')}`);
    expect((await queue.list()).map((l) => [l.id, l.tool])).toEqual([
      ["1", "a"],
      ["3", "b"],
      ["4", "c"],
    ]);
    expect(await Promise.all([queue.acknowledge("3"), queue.acknowledge("3")])).toEqual([true, false]);
    expect(await queue.acknowledge("2")).toBe(false); // the torn line is no letter
    expect(await queue.acknowledge("../x")).toBe(false);
    const other = new FileDeadLetterQueue(path);
    expect((await other.list({ acknowledged: false })).map((l) => l.tool)).toEqual(["a", "c"]);
    expect((await other.list({ acknowledged: true }))[0]).toMatchObject({ id: "3", tool: "b" });
    expect((await other.list({ tool: "c" })).map((l) => l.id)).toEqual(["4"]);
  });

  it("appends JSON lines (creating folders) that another instance reads back", async () => {
    const path = join(dir, "nested", "dead.jsonl");
    const queue = new FileDeadLetterQueue(path);
    await Promise.all([queue.append(entry("a")), queue.append(entry("b")), queue.append(entry("c"))]);
    const text = await readFile(path, "utf8");
    expect(text.split("\n")).toHaveLength(4);
    const reread = await new FileDeadLetterQueue(path).list();
    expect(reread.map((e) => e.tool)).toEqual(["a", "b", "c"]);
    expect(reread[0]?.arguments).toEqual({ contactId: "c1", big: "10" });
  });

  it("lists nothing for a file that does not exist yet", async () => {
    expect(await new FileDeadLetterQueue(join(dir, "none.jsonl")).read()).toEqual({ entries: [], skipped: [] });
  });

  it("after a crash mid-write skips the torn last line, reports it, and keeps later entries intact", async () => {
    const path = join(dir, "dead.jsonl");
    const queue = new FileDeadLetterQueue(path);
    await queue.append(entry("a"));
    await appendFile(path, '{"runId":"run-2","agent":"crm-sync","tool":"upd'); // the process died here
    expect(await queue.read()).toEqual({
      entries: [expect.objectContaining({ tool: "a" })],
      skipped: [{ line: 2, torn: true, text: '{"runId":"run-2","agent":"crm-sync","tool":"upd' }],
    });
    expect((await queue.list()).map((e) => e.tool)).toEqual(["a"]);

    await new FileDeadLetterQueue(path).append(entry("b"));
    const after = await queue.read();
    expect(after.entries.map((e) => e.tool)).toEqual(["a", "b"]);
    expect(after.skipped).toEqual([{ line: 2, torn: false, text: expect.stringContaining('"tool":"upd') }]);
  });
});
