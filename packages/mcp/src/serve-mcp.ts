import type { ToolInvoker } from "@needlework/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createMcpServer, type McpServerOptions } from "./create-mcp-server.js";

/**
 * Serves a needlework {@link ToolInvoker} as an MCP server over `transport` (stdio, Streamable
 * HTTP, in-memory, ...). Resolves with the connected server once the transport has started; close
 * it with `server.close()`. See {@link createMcpServer} for what clients see.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * await serveMcp(factory.tools, new StdioServerTransport(), { name: "orders" });
 * ```
 */
export async function serveMcp(
  invoker: ToolInvoker,
  transport: Transport,
  options: McpServerOptions = {},
): Promise<Server> {
  const server = createMcpServer(invoker, options);
  await server.connect(transport);
  return server;
}
