import type { DiagnosticsSpan, DiagnosticsTracer, TraceAttributes } from "@needlework/otel";
import { loadOtelApi, type OtelApi, SPAN_KIND, SPAN_STATUS } from "@needlework/otel/internal";

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

const NO_SPAN: McpCallSpan = { end: () => undefined };

/**
 * The client spans of the OpenTelemetry MCP conventions: `tools/call {tool}`, kind client, with
 * `mcp.method.name`, `mcp.session.id`, `mcp.protocol.version`, `gen_ai.tool.name`,
 * `network.transport`, `server.address`/`server.port` and `needlework.mcp.server` (the name the
 * server was connected under). Each is a child of the span active when the tool body runs (the
 * `execute_tool` span of `@needlework/otel`). A tracer that throws never changes a call. @internal
 */
export class McpSpans {
  private api: OtelApi | undefined;
  private tracer: DiagnosticsTracer | undefined;
  private readonly ready: Promise<void>;

  constructor(option: DiagnosticsTracer | false | undefined) {
    this.ready =
      option === false
        ? Promise.resolve()
        : loadOtelApi().then((api) => {
            this.api = api;
            try {
              this.tracer = option ?? api?.trace.getTracer("@needlework/mcp");
            } catch {
              this.tracer = undefined;
            }
          });
  }

  /** Resolves once `@opentelemetry/api` was looked for (connect waits for it). */
  loaded(): Promise<void> {
    return this.ready;
  }

  start(site: McpSpanSite): McpCallSpan {
    const tracer = this.tracer;
    if (tracer === undefined) return NO_SPAN;
    let span: DiagnosticsSpan;
    try {
      const attributes: TraceAttributes = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": site.tool,
        "gen_ai.operation.name": "execute_tool",
        "needlework.mcp.server": site.server,
        "network.transport": site.networkTransport,
        ...(site.sessionId === undefined ? {} : { "mcp.session.id": site.sessionId }),
        ...(site.protocolVersion === undefined ? {} : { "mcp.protocol.version": site.protocolVersion }),
        ...(site.address === undefined
          ? {}
          : { "server.address": site.address.host, "server.port": site.address.port }),
      };
      span = tracer.startSpan(
        `tools/call ${site.tool}`,
        { kind: SPAN_KIND.CLIENT, attributes },
        this.api?.context.active(),
      );
    } catch {
      return NO_SPAN;
    }
    return {
      end: (errorType, rpcCode) => {
        try {
          if (errorType !== undefined) {
            span.setAttributes({
              "error.type": errorType,
              ...(rpcCode === undefined ? {} : { "rpc.response.status_code": String(rpcCode) }),
            });
            span.setStatus({ code: SPAN_STATUS.ERROR, message: errorType });
          }
          span.end();
        } catch {
          // A broken tracer or exporter must never change what the caller gets.
        }
      },
    };
  }
}
