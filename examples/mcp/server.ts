import "reflect-metadata";
import { createServer, type Server as HttpServer } from "node:http";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createMcpServer, serveMcp } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { container } from "tsyringe";
import { OrderTools } from "../order-lookup/order-tools.js";

/** The order tools behind the recommended pipeline: retries inside, the result middleware outside. */
export function buildOrderFactory() {
  return usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(OrderTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
}

/** An MCP server (not yet connected) for the order tools, for callers that bring their own transport. */
export function createOrderServer() {
  const factory = buildOrderFactory();
  return createMcpServer(factory.tools, { name: "needlework-orders", version: "0.1.0", format: factory.formatOutcome });
}

/**
 * Serves the order tools over Streamable HTTP at `http://127.0.0.1:<port>/mcp`, stateless: each POST
 * gets its own server and transport (the SDK's stateless pattern), so no session outlives a request.
 */
export function serveOrdersOverHttp(port = 0): Promise<HttpServer> {
  const http = createServer((req, res) => {
    if (req.url !== "/mcp" || req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true }); // no sessionIdGenerator: stateless;
    const server = createOrderServer();
    res.on("close", () => void server.close());
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.headersSent || res.writeHead(500).end());
  });
  return new Promise((resolve) => http.listen(port, "127.0.0.1", () => resolve(http)));
}

// Run it as an MCP server: `pnpm --filter @needlework/examples build`, then
// `node examples/dist/mcp-server.js` (stdio) or `node examples/dist/mcp-server.js --http 3001`.
// On stdio, stdout carries the protocol, so log to stderr only.
const entry = process.argv[1] === undefined ? undefined : realpathSync(process.argv[1]);
if (entry !== undefined && realpathSync(fileURLToPath(import.meta.url)) === entry) {
  const httpAt = process.argv.indexOf("--http");
  if (httpAt >= 0) {
    const http = await serveOrdersOverHttp(Number(process.argv[httpAt + 1] ?? 3001));
    const address = http.address();
    console.error(
      `needlework-orders MCP server on http://127.0.0.1:${typeof address === "object" && address ? address.port : "?"}/mcp`,
    );
  } else {
    const factory = buildOrderFactory();
    await serveMcp(factory.tools, new StdioServerTransport(), {
      name: "needlework-orders",
      version: "0.1.0",
      format: factory.formatOutcome,
    });
    console.error("needlework-orders MCP server listening on stdio");
  }
}
