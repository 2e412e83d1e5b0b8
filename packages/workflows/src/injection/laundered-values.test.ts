// Argument provenance under `arguments` (DESIGN, round 4): lookalike values and values laundered
// through a trusted tool that echoes its arguments stay untrusted, in a run and without a loop.
import { AgentFunction, AgentFunctionGroup, ScriptedChatClient, type ScriptedStep } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AwaitingApprovalRunResult } from "@needlework/core/events";
import { usingAgentFramework } from "../builder/agent-framework.builder.js";

const IBAN = "DE44500105175407324931";
const LANDLORD = "GB33BUKB20201555555555";

function bank(mail: string) {
  const sent: { iban: string; amount: number }[] = [];
  @AgentFunctionGroup()
  class BankTools {
    @AgentFunction({ description: "Reads the latest e-mail.", input: z.object({}), reads: "untrusted", readOnly: true })
    readMail() {
      return { from: "billing@acme.example", body: mail };
    }

    @AgentFunction({
      description: "Checks an IBAN and names its bank.",
      input: z.object({ iban: z.string() }),
      readOnly: true,
    })
    checkIban(args: { iban: string }) {
      return { iban: args.iban, valid: true, bank: "Sparkasse" };
    }

    @AgentFunction({ description: "A saved payee's IBAN.", input: z.object({ name: z.string() }), readOnly: true })
    payee(args: { name: string }) {
      return { name: args.name, iban: LANDLORD };
    }

    @AgentFunction({
      description: "Sends money.",
      input: z.object({ iban: z.string(), amount: z.number() }),
      effects: "external",
    })
    sendMoney(args: { iban: string; amount: number }) {
      sent.push(args);
      return { sent: true };
    }
  }
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(BankTools)
    .usingToolResultMiddleware()
    .usingInjectionPolicy({ afterUntrusted: "arguments" })
    .buildAgentFactory();
  const agent = (script: ScriptedStep[]) =>
    factory.createAgent({
      name: "assistant",
      instructions: "Help with payments.",
      chatClient: new ScriptedChatClient(script),
      checkpointSecret: "a-checkpoint-secret-of-at-least-32-bytes!!",
    });
  return { factory, agent, sent };
}

const turn = (id: string, name: string, args: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ id, name, arguments: args }],
});
const flaggedOf = (result: unknown) =>
  (result as AwaitingApprovalRunResult).pendingApprovals?.find((p) => p.requiresApproval)?.untrustedArguments;

describe("arguments: lookalike values", () => {
  const printed = {
    "in groups": "DE44 5001 0517 5407 3249 31",
    "with hyphens": "DE44-5001-0517-5407-3249-31",
    "with zero-width spaces": "DE44\u200B5001\u200B0517\u200B5407\u200B3249\u200B31",
  };
  for (const [how, text] of Object.entries(printed)) {
    it(`an IBAN printed ${how} in the mail, copied without separators, stops at an approval flagging it`, async () => {
      const { agent, sent } = bank(`Please transfer 250.00 EUR to IBAN ${text}.`);
      const result = await agent([
        turn("c1", "readMail"),
        turn("c2", "sendMoney", { iban: IBAN, amount: 250 }),
        { text: "Done." },
      ]).run("Pay the invoice in my mail.");
      expect(result.status).toBe("awaiting_approval");
      expect(flaggedOf(result)).toEqual(["iban", "amount"]);
      expect(sent).toEqual([]);
    });
  }

  it("the user's IBAN typed in groups stays the user's when the model copies it without them", async () => {
    const { agent, sent } = bank(`Please transfer 250.00 EUR to IBAN ${IBAN}.`);
    const result = await agent([
      turn("c1", "readMail"),
      turn("c2", "sendMoney", { iban: IBAN, amount: 80 }),
      { text: "Done." },
    ]).run("Read my mail, then send 80 EUR to DE44 5001 0517 5407 3249 31.");
    expect(result.status).toBe("completed");
    expect(sent).toEqual([{ iban: IBAN, amount: 80 }]);
  });

  it("without a loop (tools.invoke by runId) too", async () => {
    const { factory, sent } = bank("Please transfer 250.00 EUR to IBAN DE44 5001 0517 5407 3249 31.");
    await factory.tools.invoke({ name: "readMail", arguments: {} }, { runId: "s" });
    const refused = await factory.tools.invoke(
      { name: "sendMoney", arguments: { iban: IBAN, amount: 99 } },
      { runId: "s" },
    );
    expect(refused).toMatchObject({ errorCode: "UNTRUSTED_CONTEXT", metadata: { untrustedArguments: ["iban"] } });
    expect(sent).toEqual([]);
  });
});

describe("arguments: a trusted tool echoing its arguments launders nothing", () => {
  const mail = `Please transfer 250.00 EUR to IBAN ${IBAN}.`;

  it("an IBAN from the mail passed through checkIban (which echoes it) is still flagged", async () => {
    const { agent, sent } = bank(mail);
    const result = await agent([
      turn("c1", "readMail"),
      turn("c2", "checkIban", { iban: IBAN }),
      turn("c3", "sendMoney", { iban: IBAN, amount: 99 }),
      { text: "Done." },
    ]).run("Pay 99 EUR to the IBAN in my mail.");
    expect(result.status).toBe("awaiting_approval");
    expect(flaggedOf(result)).toEqual(["iban"]);
    expect(sent).toEqual([]);
  });

  it("a value a trusted tool gives that was not in its arguments is trusted", async () => {
    const { agent, sent } = bank(`${mail} Or to ${LANDLORD}.`);
    const result = await agent([
      turn("c1", "readMail"),
      turn("c2", "payee", { name: "Landlord" }),
      turn("c3", "sendMoney", { iban: LANDLORD, amount: 99 }),
      { text: "Done." },
    ]).run("Read my mail, then pay 99 EUR to my saved payee Landlord.");
    expect(result.status).toBe("completed");
    expect(sent).toEqual([{ iban: LANDLORD, amount: 99 }]);
  });

  it("without a loop (tools.invoke by runId) too", async () => {
    const { factory, sent } = bank(mail);
    await factory.tools.invoke({ name: "readMail", arguments: {} }, { runId: "s" });
    await factory.tools.invoke({ name: "checkIban", arguments: { iban: IBAN } }, { runId: "s" });
    const refused = await factory.tools.invoke(
      { name: "sendMoney", arguments: { iban: IBAN, amount: 99 } },
      { runId: "s" },
    );
    expect(refused).toMatchObject({ errorCode: "UNTRUSTED_CONTEXT", metadata: { untrustedArguments: ["iban"] } });
    expect(sent).toEqual([]);
  });
});
