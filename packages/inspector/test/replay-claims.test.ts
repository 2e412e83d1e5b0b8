// Issue 46: every way to run a gated call is gated, and a letter replays once. Two inspector processes
// over one file store, each given the same payments agent (its `approvalPolicy` gates transfers over
// 1,000; the tool itself declares no `requiresApproval`): a gated letter is refused by both, with no
// effect; one letter replayed from both at once runs once.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileRunStore } from "@needlework/workflows";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endProcessGroup, spawnInGroup } from "../../../test/support/process-group.js";

const SCRIPT = fileURLToPath(new URL("./support/payments-inspector.ts", import.meta.url));

/** Starts one inspector process; resolves with its address once it serves. */
function startInspectorProcess(directory: string, effects: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnInGroup(
    process.execPath,
    ["--conditions=@needlework/source", "--import", "tsx", SCRIPT, directory, effects],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const url = /^url (\S+)$/m.exec(output)?.[1];
      if (url) resolve({ child, url });
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`the inspector process exited ${code}: ${output}`)));
  });
}

const letter = (amount: number) => ({
  runId: `run_pay_${amount}`,
  agent: "payments",
  tool: "transfer",
  arguments: { iban: "LT121000011101001000", amount },
  errorCode: "UPSTREAM_UNAVAILABLE",
  callIds: ["c1", "c2"],
  outcomes: [],
  time: new Date().toISOString(),
  reason: "The bank answered 503 twice.",
});

describe("replaying a dead letter from two inspector processes over one file store", () => {
  const directory = mkdtempSync(join(tmpdir(), "nw-replay-"));
  const effects = join(directory, "effects.log");
  const store = new FileRunStore(directory);
  const started: ChildProcess[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    await store.deadLetters.append(letter(900_000));
    await store.deadLetters.append(letter(40));
    const both = await Promise.all([
      startInspectorProcess(directory, effects),
      startInspectorProcess(directory, effects),
    ]);
    started.push(...both.map((b) => b.child));
    urls = both.map((b) => b.url);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((child) => endProcessGroup(child)));
    rmSync(directory, { recursive: true, force: true });
  });

  const replay = (url: string, id: string) =>
    fetch(new URL(`/api/dead-letters/${id}/replay`, url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1", "x-needlework-operator": "Ada", "content-type": "application/json" },
      body: "{}",
    });
  const ids = async () =>
    Object.fromEntries(
      (await store.deadLetters.list({ acknowledged: false })).map((l) => [
        (l.arguments as { amount: number }).amount,
        l.id,
      ]),
    );

  it("refuses a letter the agent's approvalPolicy gates (no decision record): nothing runs, it stays open", async () => {
    const { 900000: gated } = await ids();
    for (const url of urls) {
      const response = await replay(url, gated!);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "APPROVAL_REQUIRED" });
    }
    expect(existsSync(effects)).toBe(false);
    expect(Object.keys(await ids())).toContain("900000");
  });

  it("runs a letter replayed from both processes at once exactly once", async () => {
    const { 40: id } = await ids();
    const answers = await Promise.all(urls.map((url) => replay(url, id!)));
    const statuses = answers.map((a) => a.status).sort();
    // One runs it; the other finds it claimed (409) or already closed (404).
    expect(statuses[0]).toBe(200);
    expect([404, 409]).toContain(statuses[1]);
    expect(readFileSync(effects, "utf8").trim().split("\n")).toHaveLength(1);
    expect(Object.keys(await ids())).toEqual(["900000"]);
  });
});
