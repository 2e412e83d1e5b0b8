import "reflect-metadata";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serveMcp } from "@needlework/mcp";
import { buildOrderFactory, serveOrdersOverHttp } from "./server.js";

// The MCP server: `node examples/dist/mcp-server.js` (stdio) or `node examples/dist/mcp-server.js --http 3001`
// (Streamable HTTP). On stdio, stdout carries the protocol, so log to stderr only.
const httpAt = process.argv.indexOf("--http");
if (httpAt >= 0) {
  const http = await serveOrdersOverHttp(Number(process.argv[httpAt + 1] ?? 3001));
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : "?";
  console.error(`needlework-orders MCP server on http://127.0.0.1:${port}/mcp`);
} else {
  const factory = buildOrderFactory();
  await serveMcp(factory.tools, new StdioServerTransport(), {
    name: "needlework-orders",
    version: "0.1.0",
    format: factory.formatOutcome,
  });
  console.error("needlework-orders MCP server listening on stdio");
}
