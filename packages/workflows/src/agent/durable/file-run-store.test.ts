import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileRunJournal, FileRunStore } from "./file-run-store.js";
import { contentionContract } from "../../../test/contention-contract.js";
import { resumeContract } from "../../../test/resume-contract.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "needlework-runs-"));
  dirs.push(dir);
  return dir;
}

describe("FileRunStore", () => {
  // Two store instances over one directory: a restarted process sees what the dead one wrote.
  resumeContract(async () => {
    const directory = await tempDir();
    return { first: new FileRunStore(directory), second: new FileRunStore(directory) };
  });
  contentionContract(async (leaseMs) => {
    const directory = await tempDir();
    const options = leaseMs === undefined ? {} : { leaseMs };
    return { first: new FileRunStore(directory, options), second: new FileRunStore(directory, options) };
  });

  it("ignores a torn last line and keeps appending after it", async () => {
    const dir = await tempDir();
    const journal = new FileRunJournal(dir);
    expect(
      await journal.runStarted(
        {
          runId: "r1",
          agent: "a",
          instructions: "",
          input: "hi",
          startedAt: "2026-01-01T00:00:00.000Z",
        },
        "owner-1",
      ),
    ).toBe(true);
    expect(
      await journal.runStarted(
        {
          runId: "r1",
          agent: "a",
          instructions: "",
          input: "hi",
          startedAt: "2026-01-01T00:00:00.000Z",
        },
        "owner-2",
      ),
    ).toBe(false);
    await appendFile(join(dir, "r1.jsonl"), '{"kind":"turn","tu');
    await journal.turn("r1", { index: 0, message: { role: "assistant", content: "hello" } }, "owner-1");
    const run = await journal.read("r1");
    expect(run?.turns).toEqual([{ index: 0, message: { role: "assistant", content: "hello" } }]);
  });

  it("refuses a run id that is not a safe file name", async () => {
    const journal = new FileRunJournal(await tempDir());
    await expect(journal.read("../etc/passwd")).rejects.toMatchObject({ code: "INVALID_RUN_ID" });
  });
});
