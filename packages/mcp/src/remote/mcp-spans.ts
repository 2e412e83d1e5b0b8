import { type ClientSpans, clientSpans, type DiagnosticsTracer, type TraceAttributes } from "@needlework/otel";

/** What a `tools/call` span says about its connection (never arguments, headers or env). @internal */
export interface McpSpanSite {
  readonly server: string;
  readonly tool: string;
  readonly networkTransport: "pipe" | "tcp";
  readonly address: { readonly host: string; readonly port: number } | undefined;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
}

/** A span in flight: end it with the outcome's error code (or none). @internal */
export interface McpCallSpan {
  end(errorType?: string, rpcCode?: number): void;
}

/**
 * The client spans of the OpenTelemetry MCP conventions: `tools/call {tool}`, kind client, with
 * `mcp.method.name`, `mcp.session.id`, `mcp.protocol.version`, `gen_ai.tool.name`,
 * `network.transport`, `server.address`/`server.port` and `needlework.mcp.server` (the name the
 * server was connected under). Each is a child of the span active when the tool body runs (the
 * `execute_tool` span of `@needlework/otel`), made by `clientSpans()` of `@needlework/otel`. @internal
 */
export class McpSpans {
  private readonly spans: ClientSpans;

  constructor(option: DiagnosticsTracer | false | undefined) {
    this.spans = clientSpans({
      instrumentationScope: "@needlework/mcp",
      ...(option === undefined ? {} : { tracer: option }),
    });
  }

  /** Resolves once `@opentelemetry/api` was looked for (connect waits for it). */
  loaded(): Promise<void> {
    return this.spans.ready();
  }

  start(site: McpSpanSite): McpCallSpan {
    const attributes: TraceAttributes = {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": site.tool,
      "gen_ai.operation.name": "execute_tool",
      "needlework.mcp.server": site.server,
      "network.transport": site.networkTransport,
      ...(site.sessionId === undefined ? {} : { "mcp.session.id": site.sessionId }),
      ...(site.protocolVersion === undefined ? {} : { "mcp.protocol.version": site.protocolVersion }),
      ...(site.address === undefined ? {} : { "server.address": site.address.host, "server.port": site.address.port }),
    };
    const span = this.spans.start(`tools/call ${site.tool}`, attributes);
    return {
      end: (errorType, rpcCode) =>
        span.end(
          errorType === undefined
            ? undefined
            : {
                errorType,
                ...(rpcCode === undefined ? {} : { attributes: { "rpc.response.status_code": String(rpcCode) } }),
              },
        ),
    };
  }
}
