// The inspector's approval box shows a paused call's arguments as they will run: a model that sends
// `"amount"` twice is shown the amount JSON.parse and the tool keep (4000), never its raw text.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { InMemoryRunStore, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Inspector, startInspector } from "../src/index.js";

class Bank {
  readonly transfers: unknown[] = [];
}

@AgentFunctionGroup()
class PaymentTools {
  constructor(private readonly bank: Bank) {}

  @AgentFunction({
    description: "Transfers money to a payee.",
    input: z.object({ payee: z.string(), amount: z.number() }),
    requiresApproval: true,
  })
  transfer(args: { payee: string; amount: number }) {
    this.bank.transfers.push(args);
    return { sent: args.amount };
  }
}

const opened: Inspector[] = [];
afterAll(async () => {
  for (const inspector of opened) await inspector.close();
});

describe("the inspector's approval box", () => {
  it("shows a duplicated key as the call will run it, and approving runs exactly that", async () => {
    const bank = new Bank();
    const scope = container.createChildContainer();
    scope.registerInstance(Bank, bank);
    const store = new InMemoryRunStore();
    const agent = usingAgentFramework(scope)
      .addAgentFunctions(PaymentTools)
      .buildAgentFactory()
      .createAgent({
        name: "payments",
        instructions: "Pay what you are asked to.",
        chatClient: new ScriptedChatClient([
          { toolCalls: [{ id: "t1", name: "transfer", arguments: '{"payee":"ACME","amount":40,"amount":4000}' }] },
          { text: "Sent." },
        ]),
        store,
        checkpointSecret: "shown-arguments-secret-0123456789abcdef",
      });
    const paused = await agent.run("Pay ACME.");
    expect(paused.status).toBe("awaiting_approval");

    const inspector = await startInspector({ store, port: 0 });
    opened.push(inspector);
    const response = await fetch(new URL(`/api/runs/${paused.runId}`, inspector.url));
    const body = (await response.json()) as { events: { type: string; [key: string]: unknown }[] };
    const box = body.events.find((e) => e.type === "approval-required") as unknown as {
      pending: { arguments: unknown }[];
    };
    const shown = box.pending.map((p) => p.arguments);
    const call = body.events.find((e) => e.type === "tool-call");
    const asObject = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
    expect(shown.map(asObject)).toEqual([{ payee: "ACME", amount: 4000 }]);
    expect(asObject(call?.arguments)).toEqual({ payee: "ACME", amount: 4000 });
    expect(JSON.stringify([box, call])).not.toMatch(/amount\\?":40(?!\d)/);

    if (paused.status !== "awaiting_approval") return;
    const done = await agent.resume(paused.checkpoint, { [paused.pendingApprovals[0]!.callId]: "approved" });
    expect(done.status).toBe("completed");
    expect(bank.transfers).toEqual(shown.map(asObject));
  });
});
