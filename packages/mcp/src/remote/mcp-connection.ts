import { abortReason, NeedleworkError } from "@needlework/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerTransport } from "./connect-options.js";
import { httpStatusOfTransport, verdictOf } from "./remote-errors.js";

/**
 * Connecting to an MCP server failed (`connectMcpServer` rejects with it; a tool call that had to
 * reconnect answers `UPSTREAM_UNAVAILABLE` instead). `cause` holds the transport's error, for your
 * logs only: its text may quote a response body.
 *
 * @example
 * ```ts
 * try { await connectMcpServer("shop", { url }); } catch (e) { if (e instanceof McpConnectError) console.error(e.message); }
 * ```
 */
export class McpConnectError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_McpConnectError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(McpConnectError, "name", { value: "McpConnectError" });
  }
  constructor(server: string, cause: unknown) {
    super("MCP_CONNECT_FAILED", `Could not connect to MCP server '${server}'.`, { cause });
  }
}

/** The connection was closed with `close()`. @internal */
export class McpClosedError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_McpClosedError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(McpClosedError, "name", { value: "McpClosedError" });
  }
  constructor(server: string) {
    super("MCP_CONNECTION_CLOSED", `The connection to MCP server '${server}' was closed.`);
  }
}

/** How a connection behaves. @internal */
export interface McpConnectionSettings {
  readonly connectTimeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Called when the server says its tool list changed (`notifications/tools/list_changed`). */
  readonly onToolsChanged: () => void;
}

const CLIENT_INFO = { name: "needlework", version: "0.1.0" };

/**
 * One server's MCP client and the transport under it, kept usable: a closed transport (a crashed
 * stdio child, a dropped stream), a network failure or an expired session marks it broken, and the
 * next request connects again (a new child for stdio, a new session for HTTP), waiting out a backoff
 * that doubles after each failed attempt. Concurrent requests share one attempt. No timer runs
 * while nothing waits. @internal
 */
export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private notBefore = 0;
  private closed = false;

  constructor(
    readonly server: string,
    private readonly config: McpServerTransport,
    private readonly settings: McpConnectionSettings,
  ) {}

  /** `"pipe"` for stdio, `"tcp"` for HTTP (OpenTelemetry's `network.transport`). */
  get networkTransport(): "pipe" | "tcp" {
    return "command" in this.config ? "pipe" : "tcp";
  }

  /** The HTTP URL's host and port, for `server.address`/`server.port`; undefined for stdio. */
  get address(): { readonly host: string; readonly port: number } | undefined {
    if (!("url" in this.config)) return undefined;
    const url = new URL(this.config.url);
    return { host: url.hostname, port: Number(url.port || (url.protocol === "https:" ? 443 : 80)) };
  }

  /** The Streamable HTTP session, when the server gave one. */
  get sessionId(): string | undefined {
    return (this.transport as { sessionId?: string } | undefined)?.sessionId;
  }

  /** The protocol version the server agreed to. */
  get protocolVersion(): string | undefined {
    return (this.transport as { protocolVersion?: string } | undefined)?.protocolVersion;
  }

  /** A connected client: the current one, or a new connection (after the backoff, when the last attempt failed). */
  open(signal?: AbortSignal): Promise<Client> {
    if (this.closed) return Promise.reject(new McpClosedError(this.server));
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= this.connect(signal).finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Every tool the server lists (all pages). */
  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    const client = await this.open(signal);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, signal ? { signal } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      if (verdictOf(error) === "reconnect") this.markBroken(client);
      throw error;
    }
    return tools;
  }

  /**
   * Sends `tools/call` (with `_meta`) and returns its result. An abort sends
   * `notifications/cancelled` (the SDK does) and rejects with the abort's reason. An expired session
   * (HTTP 404 on a request that carried one) is re-initialized once and the call sent again: the 404
   * proves the server never ran it.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    meta: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    const request = { method: "tools/call", params: { name, arguments: args, _meta: meta } } as const;
    const send = async (): Promise<CallToolResult> => {
      const client = await this.open(signal);
      try {
        // `request`, not `callTool`: the SDK's callTool would check `structuredContent` itself and throw
        // -32602, which reads as the caller's invalid arguments; the tool's outputSchema checks it instead.
        return (await client.request(request, CallToolResultSchema, { signal, timeout: timeoutMs })) as CallToolResult;
      } catch (error) {
        if (signal.aborted) throw abortReason(signal);
        if (verdictOf(error) === "reconnect") this.markBroken(client);
        throw error;
      }
    };
    const hadSession = this.sessionId !== undefined;
    try {
      return await send();
    } catch (error) {
      if (!hadSession || httpStatusOfTransport(error) !== 404) throw error;
    }
    this.notBefore = 0; // the server answered: re-initialize at once
    return send();
  }

  /** Closes the client (and ends a stdio child); later requests are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await this.connecting?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  /** The client failed below the protocol: the next request connects again. */
  private markBroken(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.close().catch(() => undefined);
  }

  private async connect(signal: AbortSignal | undefined): Promise<Client> {
    const wait = this.notBefore - performance.now();
    if (wait > 0) await delay(wait, signal);
    const transport = this.createTransport();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.settings.onToolsChanged());
    client.onclose = () => this.markBroken(client);
    try {
      await client.connect(transport, { timeout: this.settings.connectTimeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (signal?.aborted) throw abortReason(signal);
      this.failures++;
      const backoff = Math.min(this.settings.maxDelayMs, this.settings.baseDelayMs * 2 ** (this.failures - 1));
      this.notBefore = performance.now() + backoff;
      throw new McpConnectError(this.server, error);
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpClosedError(this.server);
    }
    this.failures = 0;
    this.notBefore = 0;
    this.client = client;
    this.transport = transport;
    return client;
  }

  private createTransport(): Transport {
    const config = this.config;
    if ("url" in config) {
      const headers = config.headers === undefined ? undefined : { ...config.headers };
      return new StreamableHTTPClientTransport(new URL(config.url), headers ? { requestInit: { headers } } : {});
    }
    return new StdioClientTransport({
      command: config.command,
      args: [...(config.args ?? [])],
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: config.stderr ?? "inherit",
    });
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
