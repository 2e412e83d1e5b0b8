// A process that dies mid-run: it reads the (untrusted) inbox and the balance, then kills itself
// with SIGKILL when the model is asked for the next turn. crash.test.ts resumes the run.
// Usage: node --conditions=@needlework/source --import tsx crash-worker.ts <store directory> <runId>
import "reflect-metadata";
import { FileRunStore, ScriptedChatClient } from "@needlework/workflows";
import { buildAssistant } from "./main.js";

const [directory, runId] = process.argv.slice(2) as [string, string];
const chatClient = new ScriptedChatClient([
  { toolCalls: [{ id: "c1", name: "readInbox", arguments: {} }] },
  // Recording this turn waits for the inbox's outcome to be written: the untrusted read is durable.
  { toolCalls: [{ id: "c2", name: "balance", arguments: {} }] },
  () => {
    process.kill(process.pid, "SIGKILL");
    return { text: "never reached" };
  },
]);
const { agent } = buildAssistant("deny", { chatClient, store: new FileRunStore(directory) });
await agent.run("Summarize my inbox.", { runId });
