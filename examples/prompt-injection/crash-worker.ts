// A process that dies mid-run: it reads the (untrusted) inbox and the balance, then kills itself
// with SIGKILL when the model is asked for the next turn. crash.test.ts resumes the run.
// Usage: node --conditions=@needlework/source --import tsx crash-worker.ts <store directory> <runId>
import "reflect-metadata";
import { FileRunStore, ScriptedChatClient } from "@needlework/workflows";
import { buildAssistant } from "./main.js";

const [directory, runId] = process.argv.slice(2) as [string, string];
const chatClient = new ScriptedChatClient([
  { toolCalls: [{ id: "c1", name: "readInbox", arguments: {} }] },
  { toolCalls: [{ id: "c2", name: "balance", arguments: {} }] },
  async () => {
    // A model takes longer than the journal's commit window (10 ms): by now the inbox's outcome and
    // the turns before it are durable, as they are while a real model thinks.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(process.pid, "SIGKILL");
    return { text: "never reached" };
  },
]);
const { agent } = buildAssistant("deny", { chatClient, store: new FileRunStore(directory) });
await agent.run("Summarize my inbox.", { runId });
