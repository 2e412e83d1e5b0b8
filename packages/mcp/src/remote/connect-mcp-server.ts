import type { DefinedTool } from "@needlework/core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type ConnectMcpServerOptions,
  type McpServerTransport,
  parseConnectOptions,
  parseTransport,
} from "./connect-options.js";
import { McpConnection } from "./mcp-connection.js";
import { McpSpans } from "./mcp-spans.js";
import { checkServerName, publishedName } from "./remote-names.js";
import { resolveFlags } from "./remote-options.js";
import { fingerprintOf, type RemoteToolsState, remoteTool } from "./remote-tool.js";

/**
 * What `refresh()` found, by the tools' names on the server.
 *
 * @example
 * ```ts
 * const { added, removed, changed } = await shop.refresh();
 * ```
 */
export interface McpToolChanges {
  /** New tools: they are in `tools` now (a factory built before does not offer them). */
  readonly added: readonly string[];
  /** Gone: their tools answer `UNKNOWN_TOOL`. */
  readonly removed: readonly string[];
  /** Description or schema changed: their tools answer `TOOL_CHANGED` (or run, with `acceptToolChanges`). */
  readonly changed: readonly string[];
}

/**
 * A connected MCP server: its tools as needlework tools (hand them to `.addTools(server.tools)`),
 * and its connection.
 *
 * @example
 * ```ts
 * const shop = await connectMcpServer("shop", { url: "http://127.0.0.1:5000/mcp/shop_tools" });
 * usingAgentFramework(container).addTools(shop.tools).usingResilience().usingToolResultMiddleware().buildAgentFactory();
 * await shop.close();
 * ```
 */
export interface McpServerConnection {
  /** The name it was connected under (its tools are published as `${name}_${tool}`). */
  readonly name: string;
  /** Its tools, as pinned: listed once at connect; `refresh()` adds new ones. */
  readonly tools: readonly DefinedTool[];
  /** The Streamable HTTP session, when the server gave one. */
  readonly sessionId: string | undefined;
  /**
   * Lists the server's tools again (as a `notifications/tools/list_changed` does): added tools
   * appear in `tools`, a removed one answers `UNKNOWN_TOOL`, a changed one `TOOL_CHANGED` (never
   * runs) unless `acceptToolChanges: true`, which re-pins it.
   */
  refresh(): Promise<McpToolChanges>;
  /** Closes the connection (a stdio child ends); its tools answer `UPSTREAM_UNAVAILABLE` from then on. */
  close(): Promise<void>;
}

interface Pinned {
  readonly fingerprint: string;
  readonly tool: DefinedTool;
}

/**
 * Connects to an MCP server (a command over stdio, or a URL over Streamable HTTP), lists its tools
 * once, and returns them as needlework tools that keep every promise a decorated tool keeps: the
 * envelope, retries, idempotency keys (sent in `_meta` as `"io.needlework/idempotency-key"`),
 * timeouts, approvals, the journal, traces. A server's annotations are hints from a third party:
 * unless declared otherwise (per server, per tool, or `trust: { annotations: true }`), a remote tool
 * has `effects: "external"` and `reads: "untrusted"`, so the injection policy covers it.
 * Definitions are pinned at connect. Refuses (and closes) when the server cannot be reached, or
 * when `tools` declares a tool the server does not list.
 *
 * @example
 * ```ts
 * const shop = await connectMcpServer("shop", { url: "http://127.0.0.1:5000/mcp/shop_tools" }, {
 *   tools: { get_order: { readOnly: true } },
 * });
 * ```
 */
export async function connectMcpServer(
  name: string,
  transport: McpServerTransport,
  options: ConnectMcpServerOptions = {},
): Promise<McpServerConnection> {
  checkServerName(name);
  const config = parseTransport(transport);
  const o = parseConnectOptions(options);
  const latest = new Map<string, string>();
  const pinned = new Map<string, Pinned>();
  const taken = new Set<string>();
  const groups = o.groups ?? [name];
  let refreshing: Promise<McpToolChanges> | undefined;
  const connection = new McpConnection(name, config, {
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    baseDelayMs: o.reconnect?.baseDelayMs ?? 200,
    maxDelayMs: o.reconnect?.maxDelayMs ?? 5_000,
    onToolsChanged: () => void refresh().catch(() => undefined),
  });
  const spans = new McpSpans(o.tracer);
  const state: RemoteToolsState = {
    server: name,
    connection,
    spans,
    latest,
    acceptToolChanges: o.acceptToolChanges === true,
  };
  const pin = (tool: Tool, fingerprint: string): void => {
    const published = pinned.get(tool.name)?.tool.name ?? publishedName(name, tool.name, taken);
    taken.add(published);
    const flags = resolveFlags(tool, o, o.tools?.[tool.name], o.trust?.annotations === true);
    pinned.set(tool.name, { fingerprint, tool: remoteTool(tool, published, flags, groups, state) });
  };
  const listed = async (): Promise<Tool[]> =>
    (await connection.listTools()).filter((tool) => o.filter === undefined || o.filter(tool));

  const refresh = (): Promise<McpToolChanges> =>
    (refreshing ??= (async () => {
      const tools = await listed();
      const changes = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
      const seen = new Set<string>();
      for (const tool of tools) {
        seen.add(tool.name);
        const fingerprint = fingerprintOf(tool);
        const known = pinned.get(tool.name);
        if (known === undefined) changes.added.push(tool.name);
        else if (known.fingerprint !== fingerprint) changes.changed.push(tool.name);
        latest.set(tool.name, fingerprint);
        if (known === undefined || (known.fingerprint !== fingerprint && state.acceptToolChanges))
          pin(tool, fingerprint);
      }
      for (const known of [...latest.keys()]) {
        if (seen.has(known)) continue;
        latest.delete(known);
        changes.removed.push(known);
      }
      return changes;
    })().finally(() => (refreshing = undefined)));

  try {
    await spans.loaded();
    const tools = await listed();
    const unknown = Object.keys(o.tools ?? {}).filter((declared) => !tools.some((t) => t.name === declared));
    if (unknown.length > 0) {
      throw new TypeError(
        `connectMcpServer('${name}'): tools.${unknown[0]} names no tool of the server (it lists ${tools.map((t) => t.name).join(", ") || "none"}); a declaration that matches nothing would leave the tool undeclared.`,
      );
    }
    for (const tool of tools) {
      const fingerprint = fingerprintOf(tool);
      latest.set(tool.name, fingerprint);
      pin(tool, fingerprint);
    }
  } catch (error) {
    await connection.close();
    throw error;
  }

  return Object.freeze({
    name,
    get tools(): readonly DefinedTool[] {
      return [...latest.keys()].flatMap((tool) => {
        const found = pinned.get(tool);
        return found === undefined ? [] : [found.tool];
      });
    },
    get sessionId(): string | undefined {
      return connection.sessionId;
    },
    refresh,
    close: () => connection.close(),
  });
}
