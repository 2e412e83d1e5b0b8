import { AgentFunction, AgentFunctionGroup, createToolInvoker } from "@needlework/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, envelopeOf } from "../test/connect.js";
import { serveMcp } from "./serve-mcp.js";

let contactValue: unknown;

@AgentFunctionGroup()
class ContactTools {
  @AgentFunction({
    description: "Reads a contact.",
    input: z.object({}),
    output: z.object({ id: z.string(), email: z.string() }),
    readOnly: true,
  })
  readContact(): unknown {
    return contactValue;
  }
}

async function contactClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [ContactTools] });
  const server = await serveMcp(invoker, serverTransport);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe("tools/list annotations and structured output (official SDK Client)", () => {
  it("annotations are honest: read-only, idempotent and everything else (destructive by the spec's default)", async () => {
    const { tools } = await (await connect()).listTools();
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(annotations.getOrderStatus).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false });
    expect(annotations.markSeen).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(annotations.cancelOrder).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
  });

  it("a tool with an output schema declares outputSchema and returns matching structuredContent beside the text", async () => {
    const client = await connect({ runId: "run-3" });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "getOrderStatus")?.outputSchema).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string" }, status: { type: "string" }, runId: { type: "string" } },
      required: ["orderId", "status", "runId"],
    });
    expect(tools.find((t) => t.name === "cancelOrder")).not.toHaveProperty("outputSchema");
    // The SDK Client validates structuredContent against the listed outputSchema and throws on a mismatch.
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(result.structuredContent).toEqual({ orderId: "ORD-1", status: "shipped", runId: "run-3" });
    expect(envelopeOf(result)).toMatchObject({ status: "ok", data: result.structuredContent });
  });

  it("a failed call of such a tool has no structuredContent (isError results are not validated)", async () => {
    const result = await (await connect()).callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-404" } });
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("a value off the declared output is OUTPUT_INVALID with isError, never structuredContent the client would reject", async () => {
    const { client, close } = await contactClient();
    try {
      contactValue = { id: 7, email: "x@example.com" };
      const invalid = await client.callTool({ name: "readContact", arguments: {} });
      expect(invalid.isError).toBe(true);
      expect(invalid).not.toHaveProperty("structuredContent");
      expect(envelopeOf(invalid)).toMatchObject({ status: "error", error_code: "OUTPUT_INVALID" });

      contactValue = new Response(null, { status: 403 });
      const forbidden = await client.callTool({ name: "readContact", arguments: {} });
      expect(forbidden.isError).toBe(true);
      expect(envelopeOf(forbidden)).toMatchObject({ status: "error", error_code: "FORBIDDEN" });

      contactValue = { id: "c1", email: "c1@example.com" };
      const ok = await client.callTool({ name: "readContact", arguments: {} });
      expect(ok).toMatchObject({ isError: false, structuredContent: { id: "c1", email: "c1@example.com" } });
    } finally {
      await close();
    }
  });
});
