import { AgentFunction, AgentFunctionGroup, argumentsHash, createToolInvoker } from "@needlework/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { McpApprovalRequest } from "./mcp-approval.js";
import type { McpServerOptions } from "./create-mcp-server.js";
import { serveMcp } from "./serve-mcp.js";

const sent: { payee: string; amount: number; memo: string }[] = [];

@AgentFunctionGroup()
class PaymentTools {
  @AgentFunction({
    description: "Sends money.",
    input: z.object({ payee: z.string(), amount: z.number().positive(), memo: z.string() }),
    requiresApproval: true,
  })
  sendPayment(args: { payee: string; amount: number; memo: string }) {
    sent.push(args);
    return { sent: true };
  }
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
beforeEach(() => {
  sent.length = 0;
});

/** A client with elicitation that records what it is asked and answers `answer`. */
async function connect(options: McpServerOptions, answer?: ElicitResult, seen: { message: string }[] = []) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [PaymentTools] });
  const server = await serveMcp(invoker, serverTransport, options);
  const client = new Client({ name: "t", version: "1.0.0" }, answer ? { capabilities: { elicitation: {} } } : {});
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      seen.push(request.params as { message: string });
      return answer;
    });
  await client.connect(clientTransport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

const envelope = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;

describe("MCP approvals show every argument and run exactly what was approved", () => {
  it("a person is shown every argument, in the schema's key order, however long the memo the model put first", async () => {
    const seen: { message: string }[] = [];
    const client = await connect({}, { action: "accept", content: { approve: true } }, seen);
    const memo = "Invoice 2024-117. ".repeat(50); // ~900 characters, sent before payee and amount
    const result = await client.callTool({
      name: "sendPayment",
      arguments: { memo, amount: 9_500, payee: "ACME Ltd, IBAN DE89 3704 0044 0532 0130 00" },
    });
    expect(result.isError).toBe(false);
    const { message } = seen[0]!;
    expect(message).toContain('"payee": "ACME Ltd, IBAN DE89 3704 0044 0532 0130 00"');
    expect(message).toContain('"amount": 9500');
    expect(message).toContain(JSON.stringify(memo));
    expect(message.indexOf('"payee"')).toBeLessThan(message.indexOf('"amount"'));
    expect(message.indexOf('"amount"')).toBeLessThan(message.indexOf('"memo"'));
  });

  it("arguments too long to show whole are refused with APPROVAL_ARGUMENTS_TOO_LONG; nobody is asked", async () => {
    const seen: { message: string }[] = [];
    const client = await connect({}, { action: "accept", content: { approve: true } }, seen);
    const result = await client.callTool({
      name: "sendPayment",
      arguments: { payee: "ACME", amount: 1, memo: "x".repeat(5_000) },
    });
    expect(result.isError).toBe(true);
    expect(envelope(result)).toMatchObject({ error_code: "APPROVAL_ARGUMENTS_TOO_LONG", retriable: false });
    expect(String(envelope(result)["suggestion"])).toMatch(/split|shorten/i);
    expect(seen).toEqual([]);
    expect(sent).toEqual([]);
  });

  it("invalid arguments get INVALID_ARGUMENTS before anyone is asked (elicitation or approve)", async () => {
    const seen: { message: string }[] = [];
    const asked: unknown[] = [];
    const elicited = await connect({}, { action: "accept", content: { approve: true } }, seen);
    const bad = { name: "sendPayment", arguments: { payee: "ACME", amount: -5, memo: "" } };
    expect(envelope(await elicited.callTool(bad))).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    const approving = await connect({ approve: (call) => (asked.push(call), true) });
    expect(envelope(await approving.callTool(bad))).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    expect(seen).toEqual([]);
    expect(asked).toEqual([]);
    expect(sent).toEqual([]);
  });

  it("what runs is what was approved: approve() cannot change the arguments, and sees their hash", async () => {
    const requests: McpApprovalRequest[] = [];
    const client = await connect({
      approve: (call) => {
        requests.push(call);
        try {
          (call.arguments as Record<string, unknown>)["payee"] = "mallory";
        } catch {
          // frozen: the arguments that run are the ones shown
        }
        return true;
      },
    });
    const args = { payee: "ACME", amount: 10, memo: "rent" };
    expect((await client.callTool({ name: "sendPayment", arguments: args })).isError).toBe(false);
    expect(sent).toEqual([args]);
    expect(requests[0]!.argumentsHash).toBe(argumentsHash(args));
  });
});

describe("MCP server options are read from their own properties", () => {
  it("a polluted Object.prototype supplies no approve callback: the call still needs approval", async () => {
    const approve = () => true;
    Object.defineProperty(Object.prototype, "approve", { value: approve, configurable: true, writable: true });
    let result: Awaited<ReturnType<Client["callTool"]>>;
    try {
      const client = await connect({});
      result = await client.callTool({ name: "sendPayment", arguments: { payee: "mallory", amount: 5, memo: "x" } });
    } finally {
      delete (Object.prototype as Record<string, unknown>)["approve"];
    }
    expect(envelope(result)).toMatchObject({ error_code: "APPROVAL_REQUIRED" });
    expect(sent).toEqual([]);
  });
});
