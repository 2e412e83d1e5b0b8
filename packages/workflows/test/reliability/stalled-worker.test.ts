// A worker stopped (SIGSTOP) inside a tool body past leaseMs, while another process finishes its run,
// then continued (SIGCONT): on the file store, its late writes are refused and the journal keeps the
// other process's end. The worker is a real child process; the test process is the other one.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileRunStore } from "@needlework/durable";
import { mailer } from "../support/mailer.js";
import { startWorker, type Worker } from "../support/stalled-worker.js";

const LEASE_MS = 300;
const workers: Worker[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child.kill("SIGCONT");
    w.child.kill("SIGKILL");
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("FileRunStore: a stalled worker", () => {
  it("stopped past leaseMs while another process finishes its run: its writes are refused, the journal keeps the other's end", async () => {
    const dir = await mkdtemp(join(tmpdir(), "nw-stalled-"));
    dirs.push(dir);
    const signalFile = join(dir, "continue");
    const sentLog = join(dir, "sent.log");
    const runId = "run_stalled_file";
    const worker = startWorker(
      new URL("../support/file-stalled-worker.ts", import.meta.url),
      [dir, String(LEASE_MS), runId],
      {
        MAILER_SIGNAL_FILE: signalFile,
        MAILER_SENT_LOG: sentLog,
      },
    );
    workers.push(worker);
    await worker.line("tool-started");
    worker.child.kill("SIGSTOP");

    // This process continues the run once the stopped worker's lease expired (RUN_BUSY until then).
    const store = new FileRunStore(dir, { leaseMs: LEASE_MS });
    const agent = mailer(store, "The email may not have been sent; check before sending again.");
    await expect
      .poll(() => agent.resumeRun(runId).catch((e: unknown) => e), { timeout: 20_000, interval: 50 })
      .toMatchObject({ status: "completed_with_failures", runId });
    const finished = await store.journal.read(runId);
    expect(finished?.end?.result).toMatchObject({
      text: "The email may not have been sent; check before sending again.",
    });

    // The worker wakes up, its tool body finishes: everything it writes is refused.
    worker.child.kill("SIGCONT");
    await writeFile(signalFile, "");
    expect(await worker.line("refused")).toBe("RUN_BUSY");
    expect(await worker.exited).toBe(0);

    const after = await new FileRunStore(dir, { leaseMs: LEASE_MS }).journal.read(runId);
    expect(after).toEqual(finished);
    expect(after?.calls.map((c) => c.outcome?.outcome.errorCode)).toEqual(["OUTCOME_UNKNOWN"]);
    // The worker's late lines are in the file, naming their take, and never count.
    const lines = (await readFile(join(dir, "runs", `${runId}.jsonl`), "utf8")).split("\n").filter((l) => l !== "");
    expect(lines.some((l) => l.includes("Email sent (worker"))).toBe(false);
    // One email was sent (by the stopped worker); the journal does not claim it was, and the run,
    // resumed again, answers the second process's end.
    expect((await readFile(sentLog, "utf8")).trim().split("\n")).toHaveLength(1);
    expect((await agent.resumeRun(runId)).text).toBe("The email may not have been sent; check before sending again.");
  });
});
