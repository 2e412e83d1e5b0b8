import "reflect-metadata";
import { createServer, type Server as HttpServer } from "node:http";
import { createMcpServer } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
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
