import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cancelledOrders } from "../../ai-sdk/test/shop-tools.js";
import { createMcpServer } from "../src/create-mcp-server.js";
import { envelopeOf, invoker } from "./connect.js";

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
}

/** One MCP server per Streamable HTTP session, as the SDK's stateful example does. */
function startHttp(): Promise<{ http: HttpServer; url: URL }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await bodyOf(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        });
        created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
        await createMcpServer(invoker(), { name: "http-test", runId: (call) => call.sessionId }).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return new Promise((resolve) =>
    http.listen(0, "127.0.0.1", () =>
      resolve({ http, url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`) }),
    ),
  );
}

describe("serveMcp over Streamable HTTP (official SDK Client)", () => {
  let http: HttpServer;
  let url: URL;
  const clients: Client[] = [];

  beforeAll(async () => ({ http, url } = await startHttp()));
  beforeEach(() => void (cancelledOrders.length = 0));
  afterAll(async () => {
    for (const client of clients) await client.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  async function open(
    elicitation?: "accept" | "decline",
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client(
      { name: "http-client", version: "1.0.0" },
      elicitation ? { capabilities: { elicitation: {} } } : {},
    );
    if (elicitation)
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: elicitation, content: { approve: true } }));
    const transport = new StreamableHTTPClientTransport(url);
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it("negotiates the current protocol revision and lists tools with output schemas and annotations", async () => {
    const { client, transport } = await open();
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "getOrderStatus")).toMatchObject({
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
  });

  it("calls a tool: structuredContent beside the text, run id from the session", async () => {
    const { client, transport } = await open();
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(result.structuredContent).toEqual({ orderId: "ORD-1", status: "shipped", runId: transport.sessionId });
  });

  it("an approval tool: APPROVAL_REQUIRED without elicitation, asked and run on accept, denied on decline", async () => {
    const cancel = { name: "cancelOrder", arguments: { orderId: "ORD-1" } };
    expect(envelopeOf(await (await open()).client.callTool(cancel))).toMatchObject({ error_code: "APPROVAL_REQUIRED" });
    expect(cancelledOrders).toEqual([]);
    expect(envelopeOf(await (await open("decline")).client.callTool(cancel))).toMatchObject({
      error_code: "APPROVAL_DENIED",
    });
    expect(cancelledOrders).toEqual([]);
    const accepted = await (await open("accept")).client.callTool(cancel);
    expect(accepted.isError).toBe(false);
    expect(cancelledOrders).toEqual(["ORD-1"]);
  });
});
