// Test support: an inspector process over a file store, given a payments agent whose `transfer` tool
// is gated by the agent's `approvalPolicy` (over 1,000), not by the tool's own `requiresApproval`.
// Each transfer that runs appends a line to the effects file (after a pause, so two replays at once
// overlap). Prints "url <address>" once it serves. Args: <store directory> <effects file>.
import "reflect-metadata";
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { defineTool } from "@needlework/core";
import { startInspector } from "@needlework/inspector";
import { FileRunStore, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { z } from "zod";

const [directory, effects] = process.argv.slice(2) as [string, string];
const transfer = defineTool({
  name: "transfer",
  description: "Sends money to an IBAN.",
  input: z.object({ iban: z.string().describe("The IBAN."), amount: z.number().describe("In euros.") }),
  execute: async ({ iban, amount }) => {
    await sleep(300);
    appendFileSync(effects, `${process.pid} ${iban} ${amount}\n`);
    return { sent: amount };
  },
});
const store = new FileRunStore(directory);
const agent = usingAgentFramework(container.createChildContainer())
  .addTools(transfer)
  .usingToolResultMiddleware()
  .buildAgentFactory()
  .createAgent({
    name: "payments",
    instructions: "Pay what the user asks.",
    chatClient: new ScriptedChatClient([]),
    store,
    approvalPolicy: ({ arguments: args }) => (args as { amount: number }).amount > 1_000,
  });
const inspector = await startInspector({ store, agents: [agent], port: 0 });
process.stdout.write(`url ${inspector.url}\n`);
process.once("SIGTERM", () => void inspector.close().then(() => process.exit(0)));
