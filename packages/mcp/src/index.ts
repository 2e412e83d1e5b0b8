export { createMcpServer, type McpServerOptions, type McpToolCallInfo } from "./create-mcp-server.js";
export { serveMcp } from "./serve-mcp.js";
export type { UnhandledToolErrorHandler } from "@needlework/core";
export type { McpApprovalRequest, McpApproveFunction } from "./mcp-approval.js";
