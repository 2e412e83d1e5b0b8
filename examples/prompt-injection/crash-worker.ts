// A process that dies mid-run: it reads the (untrusted) inbox and the balance, then kills itself
// with SIGKILL when the model is asked for the next turn. crash.test.ts resumes the run.
// Usage: node --conditions=@needlework/source --import tsx crash-worker.ts <store directory> <runId>
import "reflect-metadata";
import { FileRunStore, ScriptedChatClient } from "@needlework/workflows";
import { buildAssistant } from "./main.js";

const [directory, runId] = process.argv.slice(2) as [string, string];
const store = new FileRunStore(directory);

/** Resolves once the journal holds the outcomes of `callIds` (polled, with a deadline). */
async function durable(callIds: readonly string[]): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const run = await store.journal.read(runId);
    if (callIds.every((id) => run?.calls.some((c) => c.callId === id && c.outcome !== undefined))) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the outcomes of ${callIds.join(", ")} were never journaled`);
}

const chatClient = new ScriptedChatClient([
  { toolCalls: [{ id: "c1", name: "readInbox", arguments: {} }] },
  { toolCalls: [{ id: "c2", name: "balance", arguments: {} }] },
  async () => {
    // The journal commits outcomes off the call's critical path (a 10 ms window): the process dies
    // once the inbox's and the balance's are durable, as they are while a real model thinks.
    await durable(["c1", "c2"]);
    process.kill(process.pid, "SIGKILL");
    return { text: "never reached" };
  },
]);
const { agent } = buildAssistant("deny", { chatClient, store });
await agent.run("Summarize my inbox.", { runId });
