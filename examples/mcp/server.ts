import "reflect-metadata";
import { createMcpServer, serveMcp } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
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

// Run it as an MCP server over stdio: `pnpm --filter @needlework/examples build && node examples/dist/mcp-server.js`.
// stdout carries the protocol, so log to stderr only.
if (import.meta.url === `file://${process.argv[1]}`) {
  const factory = buildOrderFactory();
  await serveMcp(factory.tools, new StdioServerTransport(), { name: "needlework-orders", version: "0.1.0", format: factory.formatOutcome });
  console.error("needlework-orders MCP server listening on stdio");
}
