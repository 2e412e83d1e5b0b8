import { randomBytes } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { aesGcmCodec, FileArtifactStore, FileRunStore } from "@needlework/durable";
import { FakeCrm, resumeAgent } from "../../../test/resume-contract.js";
import { refusedUnreadable } from "../../../../../test/support/payload-unreadable.js";

// Two file stores that share one key: a run file, a dead-letter line or an artifact copied from
// one into the other does not open there (the associated data names the store's id, kept in its
// `store-id` file), and nothing of its plain text reaches the error.

const SECRET = "sk-live-FILESTOREcanary0123456789";
const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});
async function directory(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), "nw-sec4-store-"));
  directories.push(made);
  return made;
}

/** The read is refused PAYLOAD_UNREADABLE, with no part of the sealed secret in message or stack. */
const refusal = (promise: Promise<unknown>): Promise<Error> => refusedUnreadable(promise, SECRET);

describe("a codec's values are bound to their file store", () => {
  it("a run file copied into another store with the same key does not open there; in its own it does", async () => {
    const codec = aesGcmCodec(randomBytes(32));
    const [da, db] = [await directory(), await directory()];
    const a = new FileRunStore(da, { codec });
    const b = new FileRunStore(db, { codec });
    const crm = new FakeCrm();
    const steps = [{ toolCalls: [{ name: "sendEmail", arguments: { to: SECRET } }] }, { text: `Sent ${SECRET}.` }];
    await resumeAgent(crm, a, steps).agent.run(`Mail ${SECRET}.`, { runId: "run_copied" });
    expect(await a.storeId()).toMatch(/^file:[0-9a-f-]{36}$/);
    expect(await a.storeId()).not.toBe(await b.storeId());
    // The id is the directory's: another store object over it reads the same one.
    expect(await new FileRunStore(da).storeId()).toBe(await a.storeId());
    expect((await readFile(join(da, "store-id"), "utf8")).trim()).toBe((await a.storeId()).slice("file:".length));

    await resumeAgent(crm, b, [{ text: "B's own." }]).agent.run("Nothing.", { runId: "run_b" });
    await copyFile(join(da, "runs", "run_copied.jsonl"), join(db, "runs", "run_copied.jsonl"));
    const moved = await refusal(b.journal.read("run_copied"));
    expect(moved.message).toMatch(/moved from another run, row, field or store/);
    await refusal(resumeAgent(crm, b, []).agent.resumeRun("run_copied"));
    expect((await resumeAgent(crm, new FileRunStore(da, { codec }), []).agent.resumeRun("run_copied")).text).toBe(
      `Sent ${SECRET}.`,
    );
  });

  it("a dead-letter file copied into another store is listed unreadable there", async () => {
    const codec = aesGcmCodec(randomBytes(32));
    const [da, db] = [await directory(), await directory()];
    const a = new FileRunStore(da, { codec });
    const b = new FileRunStore(db, { codec });
    await a.deadLetters.append({
      runId: "run_letter",
      agent: "crm-sync",
      tool: "sendEmail",
      arguments: { to: SECRET },
      errorCode: "FORBIDDEN",
      callIds: ["c1"],
      outcomes: [{ message: SECRET }],
      time: new Date().toISOString(),
      reason: SECRET,
    });
    await copyFile(join(da, "dead-letters.jsonl"), join(db, "dead-letters.jsonl"));
    const [theirs] = await b.deadLetters.list();
    expect(theirs?.unreadable).toBe(true);
    expect(JSON.stringify(theirs)).not.toContain(SECRET);
    expect((await a.deadLetters.list())[0]?.arguments).toEqual({ to: SECRET });
  });

  it("an artifact does not open in another store, nor under another run of its own", async () => {
    const codec = aesGcmCodec(randomBytes(32));
    const [da, db] = [await directory(), await directory()];
    const a = new FileArtifactStore(da, { codec });
    const b = new FileArtifactStore(db, { codec });
    const content = JSON.stringify({ token: SECRET });
    const { id } = await a.put({ runId: "run_art", content, items: 1, schema: { type: "object" } });
    await b.put({ runId: "run_art", content: "{}", items: 1, schema: { type: "object" } });
    await copyFile(join(da, "run-run_art", `${id}.artifact`), join(db, "run-run_art", `${id}.artifact`));
    await refusal(b.get("run_art", id));
    // Moved to another run of its own store, with its header rewritten to match: still refused.
    const { id: other } = await a.put({ runId: "run_other", content: "{}", items: 1, schema: { type: "object" } });
    expect(other).not.toBe(id);
    const text = await readFile(join(da, "run-run_art", `${id}.artifact`), "utf8");
    await writeFile(
      join(da, "run-run_other", `${id}.artifact`),
      text.replace('"runId":"run_art"', '"runId":"run_other"'),
    );
    await refusal(a.get("run_other", id));
    expect((await a.get("run_art", id))?.content).toBe(content);
  });
});
