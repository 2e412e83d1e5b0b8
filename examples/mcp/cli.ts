import "reflect-metadata";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serveMcp } from "@needlework/mcp";
import { buildOrderFactory } from "./server.js";

// The MCP server over stdio: `node examples/dist/mcp-server.js`. stdout carries the protocol, so log to stderr.
const factory = buildOrderFactory();
await serveMcp(factory.tools, new StdioServerTransport(), {
  name: "needlework-orders",
  version: "0.1.0",
  format: factory.formatOutcome,
});
console.error("needlework-orders MCP server listening on stdio");
