import { type ToolDefinition, toMcpTools } from "@needlework/core";
import type { ListToolsResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * True when the tool declares an `output` schema MCP can carry: `structuredContent` is a JSON
 * object, so only object schemas become an `outputSchema`.
 *
 * @internal
 * @example
 * ```ts
 * if (hasObjectOutput(definition)) result.structuredContent = data;
 * ```
 */
export function hasObjectOutput(d: ToolDefinition): boolean {
  const schema = d.outputSchema as { type?: unknown } | undefined;
  return schema !== undefined && schema.type === "object";
}

/**
 * The MCP `tools/list` entry of each definition: input schema, `outputSchema` for tools with an
 * `output` schema (their results then carry `structuredContent`), and honest annotations. The
 * spec's default for `destructiveHint` is true, so it is always sent: false only for read-only or
 * idempotent tools.
 *
 * @internal
 * @example
 * ```ts
 * server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toMcpToolList(definitions) }));
 * ```
 */
export function toMcpToolList(definitions: readonly ToolDefinition[]): ListToolsResult["tools"] {
  return toMcpTools(definitions) as ListToolsResult["tools"];
}
