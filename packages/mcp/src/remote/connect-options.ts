import type { DiagnosticsTracer } from "@needlework/otel";
import { parseOptions, type SchemaMatches } from "@needlework/core/kit";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RemoteToolOverrides } from "./remote-options.js";

/**
 * A server started as a child process, spoken to over its stdin and stdout. `env` is added to a
 * safe default environment (`PATH`, `HOME`, ...), never to all of yours; it never reaches the model,
 * the journal, traces or the inspector.
 *
 * @example
 * ```ts
 * const stdio: McpStdioServer = { command: "node", args: ["server.js"], env: { API_TOKEN: process.env.API_TOKEN ?? "" } };
 * ```
 */
export interface McpStdioServer {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The child's stderr: `"inherit"` (default, as the MCP SDK does) or `"ignore"`. */
  readonly stderr?: "inherit" | "ignore";
}

/**
 * A server spoken to over Streamable HTTP. `headers` (a bearer token, an API key) go with every
 * request and nowhere else: never to the model, the journal, traces or the inspector.
 *
 * @example
 * ```ts
 * const http: McpHttpServer = { url: "http://127.0.0.1:5000/mcp/shop_tools", headers: { authorization: `Bearer ${token}` } };
 * ```
 */
export interface McpHttpServer {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How to reach a server: a command to start (stdio) or a URL (Streamable HTTP). */
export type McpServerTransport = McpStdioServer | McpHttpServer;

/**
 * Options of `connectMcpServer`: what you declare for every tool of the server (the
 * {@link RemoteToolOverrides}), per tool (`tools`), and how the connection behaves.
 *
 * @example
 * ```ts
 * const options: ConnectMcpServerOptions = {
 *   trust: { annotations: true },
 *   tools: { get_order: { readOnly: true, reads: "trusted" }, refund: { approval: true } },
 * };
 * ```
 */
export interface ConnectMcpServerOptions extends RemoteToolOverrides {
  /** Believe the server's `readOnlyHint` and `idempotentHint` (hints from a third party). Default off. */
  readonly trust?: { readonly annotations?: boolean };
  /** Per-tool declarations, by the tool's name on the server; a name the server does not list is refused. */
  readonly tools?: Readonly<Record<string, RemoteToolOverrides>>;
  /** Run a tool whose description or schema changed since it was pinned (else it answers `TOOL_CHANGED`). Default `false`. */
  readonly acceptToolChanges?: boolean;
  /** Offer only the tools this returns true for (by their name on the server). Default: all. */
  readonly filter?: (tool: Tool) => boolean;
  /** Group names of the server's tools, for agents' `functionGroups`. Default: the server's name. */
  readonly groups?: readonly string[];
  /** How long connecting (and re-connecting) may take, in milliseconds. Default 10,000. */
  readonly connectTimeoutMs?: number;
  /** The wait before re-connecting after a failed attempt: doubles from `baseDelayMs` (default 200) up to `maxDelayMs` (default 5,000). */
  readonly reconnect?: { readonly baseDelayMs?: number; readonly maxDelayMs?: number };
  /** The tracer of the `tools/call` client spans; default the global OpenTelemetry tracer (when `@opentelemetry/api` is installed). `false`: no spans. */
  readonly tracer?: DiagnosticsTracer | false;
}

const positive = z.number().positive().finite();
const overrides = {
  readOnly: z.boolean().optional(),
  reads: z.enum(["trusted", "untrusted"]).optional(),
  effects: z.enum(["none", "internal", "external"]).optional(),
  idempotent: z.boolean().optional(),
  approval: z.boolean().optional(),
  timeoutMs: positive.optional(),
  sensitive: z.boolean().optional(),
  maxResultTokens: z.int().positive().optional(),
};
const overridesSchema = z.strictObject(overrides);
const schema = z.strictObject({
  ...overrides,
  trust: z.strictObject({ annotations: z.boolean().optional() }).optional(),
  tools: z.record(z.string(), overridesSchema).optional(),
  acceptToolChanges: z.boolean().optional(),
  filter: z.custom<(tool: Tool) => boolean>((value) => typeof value === "function", "must be a function").optional(),
  groups: z.array(z.string().min(1)).readonly().optional(),
  connectTimeoutMs: positive.optional(),
  reconnect: z.strictObject({ baseDelayMs: positive.optional(), maxDelayMs: positive.optional() }).optional(),
  tracer: z
    .union([
      z.literal(false),
      z.custom<DiagnosticsTracer>(
        (value) => typeof (value as { startSpan?: unknown } | null)?.startSpan === "function",
        "must be an OpenTelemetry tracer",
      ),
    ])
    .optional(),
});
true satisfies SchemaMatches<typeof overridesSchema, RemoteToolOverrides>;
true satisfies SchemaMatches<typeof schema, ConnectMcpServerOptions>;

/** The options, checked once where they are given. @internal */
export function parseConnectOptions(given: unknown): ConnectMcpServerOptions {
  const parsed = parseOptions("connectMcpServer", schema, given);
  for (const [tool, declared] of Object.entries(parsed.tools ?? {})) {
    if (declared.readOnly === true && declared.effects !== undefined && declared.effects !== "none")
      throw new TypeError(
        `connectMcpServer: tools.${tool} says readOnly: true and effects: "${declared.effects}"; drop one.`,
      );
  }
  return parsed as ConnectMcpServerOptions;
}

const stdioSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).readonly().optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  stderr: z.enum(["inherit", "ignore"]).optional(),
});
const httpSchema = z.strictObject({
  url: z.union([z.url({ protocol: /^https?$/ }), z.instanceof(URL)]),
  headers: z.record(z.string(), z.string()).optional(),
});

/** The transport, checked: a stdio command or an http(s) URL. Values are never echoed (headers hold secrets). @internal */
export function parseTransport(given: unknown): McpServerTransport {
  const isHttp = typeof given === "object" && given !== null && Object.hasOwn(given, "url");
  const parsed = (isHttp ? httpSchema : stdioSchema).safeParse(given);
  if (parsed.success) return parsed.data as McpServerTransport;
  const issue = parsed.error.issues[0];
  const at = issue === undefined || issue.path.length === 0 ? "the transport" : `'${issue.path.join(".")}'`;
  throw new TypeError(
    `connectMcpServer: ${at} is invalid (${issue?.code ?? "invalid"}): give { command, args?, env?, cwd? } for a stdio server or { url, headers? } for Streamable HTTP.`,
  );
}
