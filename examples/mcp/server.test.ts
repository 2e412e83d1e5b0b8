import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createOrderServer } from "./server.js";

describe("examples/mcp", () => {
  it("serves the order tools: a miss is an isError envelope, a hit is ok", async () => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = createOrderServer();
    await server.connect(serverTransport);
    const client = new Client({ name: "example-test", version: "1.0.0" });
    await client.connect(clientTransport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["getOrderStatus"]);
      const miss = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-999" } });
      expect(miss.isError).toBe(true);
      expect(JSON.stringify(miss.content)).toContain("ORDER_NOT_FOUND");
      const hit = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-12345" } });
      expect(hit.isError).toBe(false);
      expect(JSON.stringify(hit.content)).toContain("shipped");
    } finally {
      await client.close();
      await server.close();
    }
  });
});
