// Bench support: an MCP server made with the MCP SDK's own McpServer over Streamable HTTP (sessions
// on), in a process of its own so that client and server do not share an event loop. One tool,
// `echo`, answering JSON text. Prints `listening <url>` once it serves; exits when its parent does.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const sessions = new Map();
const http = createServer(async (req, res) => {
  const id = req.headers["mcp-session-id"];
  const known = typeof id === "string" ? sessions.get(id) : undefined;
  if (known) return known.handleRequest(req, res);
  if (typeof id === "string") return void res.writeHead(404).end();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => sessions.set(sid, transport),
  });
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the text.", inputSchema: { text: z.string().describe("What to say.") } },
    ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ said: text }) }] }),
  );
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address();
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});
process.on("disconnect", () => process.exit(0));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
