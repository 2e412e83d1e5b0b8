// Test support: an MCP server made with the MCP SDK's own McpServer, the same tools over stdio (run
// this file: `node sdk-server.mjs`) and Streamable HTTP (`startSdkHttpServer()` in the test's process).
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * The tools: `echo` (JSON text), `fail` (isError with a SQLSTATE, an HTTP status or plain text),
 * `pid` (the server's process id), `strict` (an integer argument; counts the calls it got), `meta`
 * (the idempotency key it was sent), `structured` (outputSchema: valid or not), `picture` (an image),
 * `media` (text, an image, audio and a resource blob),
 * `nothing` (empty content), `wait` (runs until cancelled), and, over stdio, `crash` (exits mid-call).
 */
export function createSdkServer(events = { calls: new Map(), cancelled: [] }, { stdio = false } = {}) {
  const server = new McpServer({ name: "sdk-fixture", version: "1.0.0" });
  events.server = server;
  const count = (name) => events.calls.set(name, (events.calls.get(name) ?? 0) + 1);
  const text = (value) => ({
    content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
  });
  server.registerTool(
    "echo",
    { description: "Echoes the text.", inputSchema: { text: z.string().describe("What to say.") } },
    ({ text: said }) => (count("echo"), text({ said })),
  );
  server.registerTool(
    "fail",
    { description: "Fails.", inputSchema: { kind: z.enum(["sql", "http", "plain"]).describe("How.") } },
    ({ kind }) => {
      count("fail");
      const message =
        kind === "sql"
          ? 'ERROR: relation "orders" does not exist (SQLSTATE 42P01)'
          : kind === "http"
            ? "upstream answered HTTP 503 Service Unavailable"
            : "the warehouse is closed on Sundays";
      return { ...text(message), isError: true };
    },
  );
  server.registerTool("pid", { description: "The server's process id.", inputSchema: {} }, () =>
    text({ pid: process.pid }),
  );
  server.registerTool(
    "strict",
    { description: "Takes an integer.", inputSchema: { n: z.number().int().describe("A whole number.") } },
    ({ n }) => (count("strict"), text({ n })),
  );
  server.registerTool("meta", { description: "Says the key it got.", inputSchema: {} }, (_args, extra) =>
    text({ key: extra._meta?.["io.needlework/idempotency-key"] ?? null }),
  );
  server.registerTool(
    "structured",
    {
      description: "Adds.",
      inputSchema: { valid: z.boolean().describe("Whether to answer to the schema.") },
      // What the server checks its own answers against; it publishes a stricter one below.
      outputSchema: { total: z.union([z.number(), z.string()]) },
    },
    ({ valid }) => {
      const data = valid ? { total: 3 } : { total: "three" };
      return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  server.registerTool("picture", { description: "A picture.", inputSchema: {} }, () => ({
    content: [{ type: "image", data: Buffer.alloc(1024, 7).toString("base64"), mimeType: "image/png" }],
  }));
  server.registerTool("media", { description: "A chart, a clip and a file.", inputSchema: {} }, () => ({
    content: [
      { type: "text", text: "Q3 revenue, as a chart, a voice note and the raw file." },
      { type: "image", data: Buffer.alloc(2048, 1).toString("base64"), mimeType: "image/png" },
      { type: "audio", data: Buffer.alloc(512, 2).toString("base64"), mimeType: "audio/wav" },
      {
        type: "resource",
        resource: {
          uri: "file:///q3.parquet",
          mimeType: "application/vnd.apache.parquet",
          blob: Buffer.alloc(300, 3).toString("base64"),
        },
      },
    ],
  }));
  server.registerTool("nothing", { description: "Returns nothing.", inputSchema: {} }, () => ({ content: [] }));
  server.registerTool(
    "wait",
    { description: "Waits until cancelled.", inputSchema: {} },
    (_args, extra) =>
      new Promise((resolve) => {
        count("wait");
        events.waiting?.();
        extra.signal.addEventListener("abort", () => {
          events.cancelled.push(String(extra.requestId));
          events.onCancelled?.();
          resolve(text("cancelled"));
        });
      }),
  );
  // A server whose published outputSchema says `total` is a number while it may answer a string:
  // the client's own check against the published schema is what catches it.
  const handlers = server.server._requestHandlers;
  const list = handlers.get("tools/list");
  handlers.set("tools/list", async (request, extra) => {
    const result = await list(request, extra);
    for (const tool of result.tools)
      if (tool.name === "structured")
        tool.outputSchema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };
    return result;
  });
  if (stdio) {
    server.registerTool("crash", { description: "Exits mid-call.", inputSchema: {} }, () => process.exit(3));
  }
  return server;
}

/**
 * The server over Streamable HTTP on 127.0.0.1 (a free port), with sessions. `expire(id)` forgets a
 * session: its next request gets 404, as the spec says of an expired session.
 */
export async function startSdkHttpServer(events) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const transport = sessions.get(id);
      if (!transport) {
        res
          .writeHead(404)
          .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      await transport.handleRequest(req, res);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    await createSdkServer(events).connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions,
    expire: (sid) => sessions.delete(sid),
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  await createSdkServer(undefined, { stdio: true }).connect(new StdioServerTransport());
}
