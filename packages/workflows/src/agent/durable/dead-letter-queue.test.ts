import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
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
    (listed as DeadLetterEntry[]).pop();
    expect(await queue.list()).toHaveLength(2);
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
