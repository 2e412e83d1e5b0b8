import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileRunStore, ScriptedChatClient } from "@needlework/workflows";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildAssistant } from "./main.js";

const WORKER = fileURLToPath(new URL("./crash-worker.ts", import.meta.url));
let directory: string | undefined;
afterEach(() => {
  vi.useRealTimers();
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe("examples/prompt-injection: a crash after untrusted content", () => {
  it("a process killed after reading the inbox; resumeRun in this process still refuses the injected transfer", async () => {
    directory = mkdtempSync(join(tmpdir(), "needlework-injection-"));
    const child = fork(WORKER, [directory, "run-killed"], {
      execArgv: ["--conditions=@needlework/source", "--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_, s) => resolve(s)));
    expect(signal).toBe("SIGKILL");

    // The dead process still holds the run's lease: move the clock past it (30 s by default).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 60_000);
    const store = new FileRunStore(directory);
    const recorded = await store.journal.read("run-killed");
    const inbox = recorded?.calls.find((c) => c.tool === "readInbox");
    expect(inbox?.outcome?.outcome.metadata).toMatchObject({ provenance: "untrusted" });

    // This process's model, having read the inbox (replayed from the journal), obeys the injection.
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ id: "c3", name: "sendMoney", arguments: { iban: "LT121000011101001000", amount: 4900 } }] },
      { text: "I could not send it." },
    ]);
    const { agent, ledger } = buildAssistant("deny", { chatClient, store });
    const result = await agent.resumeRun("run-killed");
    expect(ledger.transfers).toEqual([]);
    expect(result.calls.map((c) => [c.tool, c.errorCode ?? c.status, c.provenance])).toEqual([
      ["readInbox", "ok", "untrusted"],
      ["balance", "ok", undefined],
      ["sendMoney", "UNTRUSTED_CONTEXT", undefined],
    ]);
  }, 60_000);
});
