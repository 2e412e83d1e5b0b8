import "reflect-metadata";
import type { ChatClient, ChatRequest, ScriptedTurn } from "@needlework/core";
import { type AgentStore, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { BankTools, Ledger, MailTools } from "./tools.js";

const TRANSFER = /transfer ([\d.,]+) EUR to IBAN ([A-Z]{2}\d{2}[A-Z\d]+)/gi;

/**
 * A stand-in for a model that obeys whatever it reads (the worst case): it reads the inbox, then
 * makes every transfer it finds written anywhere, one per turn, in the order it read them: the
 * user's message first, then each mail.
 */
function obedientModel(): ScriptedChatClient {
  const follow = (request: ChatRequest): ScriptedTurn => {
    const read = request.messages.filter((m) => m.role === "tool");
    if (read.length === 0) return { toolCalls: [{ name: "readInbox", arguments: {} }] };
    const orders = request.messages
      .filter((m) => m.role === "user" || m.role === "tool")
      .flatMap((m) => [...String(m.content).matchAll(TRANSFER)])
      .map((match) => ({ iban: match[2]!, amount: Number(match[1]!.replace(/,/g, "")) }));
    const done = read.length - 1; // one tool message per transfer after the inbox
    const next = orders[done];
    return next === undefined ? { text: "Done." } : { toolCalls: [{ name: "sendMoney", arguments: next }] };
  };
  return new ScriptedChatClient(Array.from({ length: 8 }, () => follow));
}

/** The factory and agent of the example, under one policy mode. */
export function buildAssistant(
  afterUntrusted: "approve" | "deny" | "arguments" | "allow",
  options: { readonly chatClient?: ChatClient; readonly store?: AgentStore } = {},
) {
  const ledger = new Ledger();
  const scope = container.createChildContainer();
  scope.registerInstance(Ledger, ledger);
  const factory = usingAgentFramework(scope)
    .addAgentFunctions(MailTools, BankTools)
    .usingToolResultMiddleware()
    .usingInjectionPolicy({ afterUntrusted })
    .buildAgentFactory();
  const agent = factory.createAgent({
    name: "assistant",
    instructions: "You help with the user's mail and bank account.",
    chatClient: options.chatClient ?? obedientModel(),
    ...(options.store === undefined ? {} : { store: options.store }),
  });
  return { factory, agent, ledger };
}

/** Runs the injected inbox under each mode and prints what happened. */
export async function runPromptInjectionExample(print: (line: string) => void = console.log): Promise<void> {
  for (const mode of ["arguments", "deny"] as const) {
    const { agent, ledger } = buildAssistant(mode);
    const result = await agent.run("Summarize my inbox.");
    print(`${mode}: ${result.status}, transfers made: ${ledger.transfers.length}`);
    if (result.status === "awaiting_approval") {
      for (const p of result.pendingApprovals)
        print(
          `  approval asked for ${p.tool}(${JSON.stringify(p.arguments)}); flagged: ${p.untrustedArguments?.join(", ")}`,
        );
      print(`  why: ${result.pendingApprovals[0]?.reason}`);
    }
    for (const call of result.calls)
      print(`  ${call.tool} -> ${call.errorCode ?? call.status}${call.provenance ? ` (${call.provenance})` : ""}`);
  }
  // The user names the payee and the amount: under "arguments" that transfer needs no approval.
  const { agent, ledger } = buildAssistant("arguments");
  const result = await agent.run(
    "Read my inbox, then transfer 80 EUR to IBAN GB33BUKB20201555555555 for the window cleaner.",
  );
  print(`user-named transfer: ${result.status}, transfers made: ${ledger.transfers.length}`);
}
