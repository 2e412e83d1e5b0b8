import "reflect-metadata";
import { createMcpServer } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
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
