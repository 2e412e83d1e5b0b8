import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { argumentsHash } from "@needlework/core";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { cancelledOrders } from "../../ai-sdk/test/shop-tools.js";
import { connect, envelopeOf } from "../test/connect.js";

const cancel = { name: "cancelOrder", arguments: { orderId: "ORD-1" } };

/** A client that declares elicitation and answers every request with `answer`. */
function answering(answer: ElicitResult, seen: unknown[] = []) {
  return (client: Client) =>
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      seen.push(request.params);
      return answer;
    });
}

describe("requiresApproval tools through MCP never run unapproved", () => {
  beforeEach(() => {
    cancelledOrders.length = 0;
  });

  it("a client without elicitation gets APPROVAL_REQUIRED (isError) and the tool does not run", async () => {
    const result = await (await connect()).callTool(cancel);
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({ status: "error", error_code: "APPROVAL_REQUIRED", retriable: false });
    expect(cancelledOrders).toEqual([]);
  });

  it("a client that declares elicitation is asked; accept runs the tool", async () => {
    const seen: unknown[] = [];
    const client = await connect(
      {},
      { capabilities: { elicitation: {} } },
      answering({ action: "accept", content: { approve: true } }, seen),
    );
    const result = await client.callTool(cancel);
    expect(result.isError).toBe(false);
    expect(envelopeOf(result)).toMatchObject({ status: "ok", data: { orderId: "ORD-1", cancelled: true } });
    expect(cancelledOrders).toEqual(["ORD-1"]);
    expect(seen).toEqual([expect.objectContaining({ message: expect.stringContaining("cancelOrder") })]);
    expect(JSON.stringify(seen[0])).toContain("ORD-1");
  });

  it.each([
    ["decline", { action: "decline" }],
    ["cancel", { action: "cancel" }],
    ["accept with approve: false", { action: "accept", content: { approve: false } }],
    ["accept with no content", { action: "accept" }],
    ["accept with an empty form", { action: "accept", content: {} }],
    ["accept with another field", { action: "accept", content: { other: "x" } }],
    ["accept with approve: 'true' (a string)", { action: "accept", content: { approve: "true" } }],
  ] as const)("%s answers APPROVAL_DENIED and the tool does not run", async (_label, answer) => {
    const client = await connect({}, { capabilities: { elicitation: {} } }, answering(answer));
    const result = await client.callTool(cancel);
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({ status: "error", error_code: "APPROVAL_DENIED" });
    expect(cancelledOrders).toEqual([]);
  });

  it("without elicitation, the approve(call) option decides", async () => {
    const approve = vi.fn(
      (call: { arguments: Readonly<Record<string, unknown>> }) => call.arguments.orderId === "ORD-1",
    );
    const client = await connect({ approve });
    expect((await client.callTool(cancel)).isError).toBe(false);
    const denied = await client.callTool({ name: "cancelOrder", arguments: { orderId: "ORD-2" } });
    expect(envelopeOf(denied)).toMatchObject({ error_code: "APPROVAL_DENIED" });
    expect(cancelledOrders).toEqual(["ORD-1"]);
    expect(approve).toHaveBeenCalledWith({
      toolName: "cancelOrder",
      arguments: { orderId: "ORD-1" },
      argumentsText: '{\n  "orderId": "ORD-1"\n}',
      argumentsHash: argumentsHash({ orderId: "ORD-1" }),
      requestId: expect.any(Number),
      sessionId: undefined,
    });
  });

  it("tools without requiresApproval never trigger elicitation", async () => {
    const seen: unknown[] = [];
    const client = await connect({}, { capabilities: { elicitation: {} } }, answering({ action: "decline" }, seen));
    expect((await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } })).isError).toBe(false);
    expect(seen).toEqual([]);
  });
});

describe("MCP approvals fail closed, and the server's callbacks never leak", () => {
  const SECRET = "postgres://app:mcp-canary-pw@db/x";

  beforeEach(() => {
    cancelledOrders.length = 0;
  });

  it("the elicitation form's checkbox defaults to false", async () => {
    const seen: { requestedSchema?: { properties?: Record<string, { default?: unknown }> } }[] = [];
    const client = await connect({}, { capabilities: { elicitation: {} } }, answering({ action: "decline" }, seen));
    await client.callTool(cancel);
    expect(seen[0]?.requestedSchema?.properties?.["approve"]?.default).toBe(false);
  });

  it.each([["false"], [1], [{ ok: true }], ["yes"]])("approve() returning %j is not an approval", async (answer) => {
    const client = await connect({ approve: () => answer as never });
    const result = await client.callTool(cancel);
    expect(envelopeOf(result)).toMatchObject({ error_code: "APPROVAL_DENIED" });
    expect(cancelledOrders).toEqual([]);
  });

  it.each([
    ["approve", { approve: (): Promise<boolean> => Promise.reject(new Error(`policy db down: ${SECRET}`)) }],
    [
      "runId",
      {
        approve: (): boolean => true,
        runId: (): string => {
          throw new Error(`tenant lookup failed: ${SECRET}`);
        },
      },
    ],
  ] as const)(
    "an exception in %s answers isError with a fixed text, never the exception's",
    async (_label, options) => {
      const client = await connect(options);
      const result = await client.callTool(cancel);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).not.toContain("mcp-canary-pw");
      expect(envelopeOf(result)).toMatchObject({ error_code: "SERVER_CALLBACK_FAILED", retriable: false });
      expect(cancelledOrders).toEqual([]);
    },
  );
});
