// Structural views of the parts of `@opentelemetry/api` the diagnostics plugin uses. An OTel
// `Tracer` satisfies `DiagnosticsTracer` as it is, and nothing here imports the package, so
// needlework type-checks and runs without it (it is an optional peer dependency).

/**
 * An attribute value as OpenTelemetry accepts it.
 *
 * @example
 * ```ts
 * const value: TraceAttributeValue = ["stop"];
 * ```
 */
export type TraceAttributeValue = string | number | boolean | string[] | number[] | boolean[];

/**
 * Span attributes.
 *
 * @example
 * ```ts
 * const attributes: TraceAttributes = { "gen_ai.tool.name": "getOrderStatus" };
 * ```
 */
export type TraceAttributes = Record<string, TraceAttributeValue>;

/**
 * The span methods needlework calls: an OpenTelemetry `Span` has them all.
 *
 * @example
 * ```ts
 * const span: DiagnosticsSpan = tracer.startSpan("execute_tool getOrderStatus");
 * span.end();
 * ```
 */
export interface DiagnosticsSpan {
  setAttributes(attributes: TraceAttributes): unknown;
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  /** `code`: 0 unset, 1 ok, 2 error (OpenTelemetry's `SpanStatusCode`). */
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/**
 * What the diagnostics plugin needs of a tracer: `trace.getTracer("my-app")` from
 * `@opentelemetry/api` fits.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * const tracer: DiagnosticsTracer = trace.getTracer("support-bot");
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingDiagnostics({ tracer });
 * ```
 */
export interface DiagnosticsTracer {
  /** `kind`: 0 internal, 2 client (OpenTelemetry's `SpanKind`); `context` is an OTel `Context`. */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: TraceAttributes },
    context?: unknown,
  ): DiagnosticsSpan;
}

/** The part of `@opentelemetry/api` used to parent spans and make them active. @internal */
export interface OtelApi {
  readonly trace: {
    setSpan(context: unknown, span: DiagnosticsSpan): unknown;
    getTracer(name: string, version?: string): DiagnosticsTracer;
  };
  readonly context: {
    active(): unknown;
    with<T>(context: unknown, fn: () => T): T;
  };
}

/** OpenTelemetry's `SpanKind` and `SpanStatusCode` values. @internal */
export const SPAN_KIND = { INTERNAL: 0, CLIENT: 2 } as const;
/** @internal */
export const SPAN_STATUS = { OK: 1, ERROR: 2 } as const;
