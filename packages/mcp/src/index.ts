export { createMcpServer, type McpServerOptions, type McpToolCallInfo } from "./create-mcp-server.js";
export { serveMcp } from "./serve-mcp.js";
export type { UnhandledToolErrorHandler } from "@needlework/core";
export type { McpApprovalRequest, McpApproveFunction } from "./mcp-approval.js";
export {
  connectMcpServer,
  type McpServerConnection,
  type McpToolChanges,
} from "./remote/connect-mcp-server.js";
export type {
  ConnectMcpServerOptions,
  McpHttpServer,
  McpServerTransport,
  McpStdioServer,
} from "./remote/connect-options.js";
export type { RemoteToolOverrides } from "./remote/remote-options.js";
export type { ContentDescription } from "./remote/remote-content.js";
export { McpConnectError } from "./remote/mcp-connection.js";
export { IDEMPOTENCY_KEY_META } from "./remote/remote-tool.js";
