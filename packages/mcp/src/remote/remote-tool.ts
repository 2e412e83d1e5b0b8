import { abortReason, type DefinedTool, defineTool, isToolResult, type JsonSchema, ToolResult } from "@needlework/core";
import { BINARY_ARTIFACTS_ITEM, type BinaryArtifactSink } from "@needlework/core/internal";
import { canonicalJson } from "@needlework/core/kit";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { McpClosedError, McpConnectError, type McpConnection } from "./mcp-connection.js";
import type { McpSpans } from "./mcp-spans.js";
import { httpStatusOfTransport, transportFailure } from "./remote-errors.js";
import type { ResolvedRemoteFlags } from "./remote-options.js";
import { storeBinaries } from "./remote-content.js";
import { failWith, type RemoteCallSite, remoteAnswer } from "./remote-results.js";

/**
 * The `_meta` key of the call's idempotency key (stable across retries of one call), for servers
 * that honour it.
 *
 * @example
 * ```ts
 * server.tool("charge", schema, (args, extra) => charge(args, extra._meta?.[IDEMPOTENCY_KEY_META] as string));
 * ```
 */
export const IDEMPOTENCY_KEY_META = "io.needlework/idempotency-key";

/** The SDK's own request timeout when the tool declares none (the MCP SDK's default). */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** What every tool of one connected server shares. @internal */
export interface RemoteToolsState {
  readonly server: string;
  readonly connection: McpConnection;
  readonly spans: McpSpans;
  /** The latest listing: each tool's fingerprint, by its name on the server. */
  readonly latest: ReadonlyMap<string, string>;
  readonly acceptToolChanges: boolean;
}

/** What pins a definition: its description and schemas (a change to any answers `TOOL_CHANGED`). @internal */
export function fingerprintOf(tool: Tool): string {
  return canonicalJson({
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
  });
}

function failureCode(answer: unknown): string | undefined {
  return isToolResult(answer) && answer.kind === "fail" ? answer.error.code : undefined;
}

function thrownCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "UNHANDLED_ERROR";
}

/** A failure below the tool, as its answer: connecting, the application's close(), the transport. */
function failureBelow(error: unknown, site: RemoteCallSite): unknown {
  if (error instanceof McpClosedError)
    return ToolResult.fail(`The connection to server '${site.server}' was closed by the application.`, {
      code: "UPSTREAM_UNAVAILABLE",
      suggestion: "Continue without this tool.",
    });
  if (error instanceof McpConnectError) {
    const status = httpStatusOfTransport(error.cause);
    if (status === 401 || status === 403) return transportFailure(error.cause, site);
    return failWith(
      {
        status: "error",
        code: "UPSTREAM_UNAVAILABLE",
        retriable: true,
        effect: "none",
        message: `Server '${site.server}' is unavailable (could not connect).`,
        suggestion: "Retry later; if it keeps failing, report the outage.",
      },
      site,
    );
  }
  return transportFailure(error, site);
}

/**
 * One tool of a connected server as a needlework tool, made with `defineTool`: its JSON Schemas
 * validated by ajv before the call, its flags as declared, its definition pinned. The body answers
 * `UNKNOWN_TOOL` once the server no longer lists it and `TOOL_CHANGED` once its definition changed
 * (unless changes are accepted), sends the call with the idempotency key in `_meta`, and maps the
 * result and every failure (see `remoteAnswer`, `transportFailure`). @internal
 */
export function remoteTool(
  tool: Tool,
  published: string,
  flags: ResolvedRemoteFlags,
  groups: readonly string[],
  state: RemoteToolsState,
): DefinedTool {
  const pinned = fingerprintOf(tool);
  const site: RemoteCallSite = {
    server: state.server,
    tool: tool.name,
    safeToRepeat: flags.readOnly || flags.idempotent,
  };
  const requestTimeoutMs = flags.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const { connection } = state;
  return defineTool({
    name: published,
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
    server: state.server,
    groups,
    readOnly: flags.readOnly,
    reads: flags.reads,
    effects: flags.effects,
    idempotent: flags.idempotent,
    approval: flags.approval,
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
    ...(flags.sensitive === undefined ? {} : { sensitive: flags.sensitive }),
    ...(flags.maxResultTokens === undefined ? {} : { maxResultTokens: flags.maxResultTokens }),
    execute: async (args, ctx) => {
      const now = state.latest.get(tool.name);
      if (now === undefined)
        return ToolResult.fail(`Server '${state.server}' no longer offers '${tool.name}'.`, {
          code: "UNKNOWN_TOOL",
          suggestion: "Use another tool; this one was removed from its server.",
        });
      if (now !== pinned && !state.acceptToolChanges)
        return ToolResult.fail(
          `Tool '${tool.name}' of server '${state.server}' changed its description or schema since it was pinned; it was not called.`,
          {
            code: "TOOL_CHANGED",
            suggestion: "Continue without this tool; a person must review the change before it runs again.",
          },
        );
      const meta = { [IDEMPOTENCY_KEY_META]: ctx.idempotencyKey };
      const span = state.spans.start({
        server: state.server,
        tool: tool.name,
        networkTransport: connection.networkTransport,
        address: connection.address,
        sessionId: connection.sessionId,
        protocolVersion: connection.protocolVersion,
      });
      let result: Awaited<ReturnType<McpConnection["callTool"]>>;
      try {
        result = await connection.callTool(tool.name, args, meta, ctx.signal, requestTimeoutMs);
      } catch (error) {
        if (ctx.signal.aborted) {
          span.end("CANCELLED");
          throw abortReason(ctx.signal);
        }
        const rpcCode = error instanceof McpError ? error.code : undefined;
        try {
          const answer = failureBelow(error, site);
          span.end(failureCode(answer) ?? "TOOL_ERROR", rpcCode);
          return answer;
        } catch (thrown) {
          span.end(thrownCode(thrown), rpcCode);
          throw thrown;
        }
      }
      try {
        const sink = ctx.items.get(BINARY_ARTIFACTS_ITEM) as BinaryArtifactSink | undefined;
        const answer = remoteAnswer(result, site, await storeBinaries(result, sink));
        span.end(failureCode(answer));
        return answer;
      } catch (thrown) {
        span.end(thrownCode(thrown));
        throw thrown;
      }
    },
  });
}
