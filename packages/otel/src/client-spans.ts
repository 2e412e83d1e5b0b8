import { InvalidOptionError } from "@needlework/core";
import { loadOtelApi } from "./otel-api.js";
import {
  type DiagnosticsSpan,
  type DiagnosticsTracer,
  type OtelApi,
  SPAN_KIND,
  SPAN_STATUS,
  type TraceAttributes,
} from "./otel-types.js";

/**
 * Options of {@link clientSpans}.
 *
 * @example
 * ```ts
 * const options: ClientSpansOptions = { instrumentationScope: "@acme/grpc-tools" };
 * ```
 */
export interface ClientSpansOptions {
  /**
   * The tracer; omitted: the global provider's tracer under `instrumentationScope` (none when
   * `@opentelemetry/api` is not installed); `false`: no spans at all.
   */
  readonly tracer?: DiagnosticsTracer | false;
  /** Your package's name: the instrumentation scope of the global provider's tracer. */
  readonly instrumentationScope: string;
}

/**
 * How a client span ended badly: a stable code (`TIMEOUT`, `TOOL_ERROR`), never an exception's
 * message, and the protocol's own attributes of the failure.
 *
 * @example
 * ```ts
 * const failure: ClientSpanFailure = { errorType: "TIMEOUT", attributes: { "rpc.response.status_code": "4" } };
 * ```
 */
export interface ClientSpanFailure {
  /** Set as `error.type` and as the span status's message. */
  readonly errorType: string;
  readonly attributes?: TraceAttributes;
}

/**
 * A client span in flight. `end` never throws (a broken tracer or exporter never changes a call),
 * and a second `end` does nothing.
 *
 * @example
 * ```ts
 * span.end(response.ok ? undefined : { errorType: `HTTP_${response.status}` });
 * ```
 */
export interface ClientSpan {
  /** Ends the span; with `failure`, its `error.type` and attributes set and its status ERROR. */
  end(failure?: ClientSpanFailure): void;
}

/**
 * Spans of kind client for what a tool body sends to another service, made by {@link clientSpans}.
 *
 * @example
 * ```ts
 * await spans.ready();
 * const span = spans.start("tools/call lookup", { "gen_ai.tool.name": "lookup" });
 * ```
 */
export interface ClientSpans {
  /** Resolves once `@opentelemetry/api` was looked for and the tracer is known: spans started before are not made. */
  ready(): Promise<void>;
  /**
   * Starts `name` as a client span with `attributes`, as a child of the active OpenTelemetry context
   * (inside a tool body: its `execute_tool` span). Attributes are exported as given: put no
   * arguments, headers or secrets in them. A tracer that throws gives a span that does nothing.
   */
  start(name: string, attributes: TraceAttributes): ClientSpan;
}

const NO_SPAN: ClientSpan = { end: () => undefined };
const TRACER = 'must be an OpenTelemetry tracer (trace.getTracer("my-app")), false, or left out for the global one';

/**
 * Client spans for a tool source of your own (a gRPC or A2A client, a remote tool protocol), as
 * `@needlework/mcp` makes its `tools/call` spans: each a child of the `execute_tool` span the tool
 * body runs under (with a context manager registered), guarded so that tracing never changes a call,
 * and without a dependency on `@opentelemetry/api` (looked for once, lazily; without it and without
 * a tracer, no spans).
 *
 * @example
 * ```ts
 * import { clientSpans } from "@needlework/otel";
 * const spans = clientSpans({ instrumentationScope: "@acme/grpc-tools" });
 * await spans.ready();
 * const span = spans.start("grpc Lookup", { "rpc.system": "grpc", "server.address": host });
 * try {
 *   const answer = await client.lookup(request);
 *   span.end();
 *   return answer;
 * } catch (error) {
 *   span.end({ errorType: "UNAVAILABLE" });
 *   throw error;
 * }
 * ```
 */
export function clientSpans(options: ClientSpansOptions): ClientSpans {
  const { tracer: option, instrumentationScope: scope } = (options ?? {}) as Partial<ClientSpansOptions>;
  if (option !== undefined && option !== false && typeof (option as { startSpan?: unknown }).startSpan !== "function")
    throw new InvalidOptionError("tracer", option, `clientSpans: option 'tracer' ${TRACER}.`);
  if (typeof scope !== "string" || scope === "")
    throw new InvalidOptionError(
      "instrumentationScope",
      scope,
      "clientSpans: option 'instrumentationScope' must be your package's name (a non-empty string).",
    );
  let api: OtelApi | undefined;
  let tracer: DiagnosticsTracer | undefined;
  const ready =
    option === false
      ? Promise.resolve()
      : loadOtelApi().then((found) => {
          api = found;
          try {
            tracer = option ?? found?.trace.getTracer(scope);
          } catch {
            tracer = undefined;
          }
        });
  return {
    ready: () => ready,
    start(name, attributes) {
      if (tracer === undefined) return NO_SPAN;
      let span: DiagnosticsSpan;
      try {
        span = tracer.startSpan(name, { kind: SPAN_KIND.CLIENT, attributes }, api?.context.active());
      } catch {
        return NO_SPAN;
      }
      let ended = false;
      return {
        end(failure) {
          if (ended) return;
          ended = true;
          try {
            if (failure !== undefined) {
              span.setAttributes({ ...failure.attributes, "error.type": failure.errorType });
              span.setStatus({ code: SPAN_STATUS.ERROR, message: failure.errorType });
            }
            span.end();
          } catch {
            // A broken tracer or exporter must never change what the caller gets.
          }
        },
      };
    },
  };
}
