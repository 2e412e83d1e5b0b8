/**
 * `@needlework/workflows/diagnostics`: for exporters and dashboards built on `usingDiagnostics()`.
 * The trace attribute and event names and the structural tracer and span types (`@needlework/otel`'s,
 * re-exported: import them from either), record and metric
 * parts, and the payloads of the resilience plugin's events. An application uses `usingDiagnostics()`,
 * `DiagnosticRecord`, `DiagnosticsMetrics` and `formatRunReport` from the main entry.
 *
 * @example
 * ```ts
 * import { TRACE_ATTRIBUTES } from "@needlework/workflows/diagnostics";
 * const status = (span: { attributes: Record<string, unknown> }) => span.attributes[TRACE_ATTRIBUTES.toolStatus];
 * ```
 * @packageDocumentation
 */
export {
  UNKNOWN_TOOL_BUCKET,
  type DiagnosticError,
  type DiagnosticsLogFn,
  type LatencySummary,
} from "./diagnostics/index.js";
export {
  TRACE_ATTRIBUTES,
  TRACE_EVENTS,
  type DiagnosticsSpan,
  type DiagnosticsTracer,
  type TraceAttributes,
  type TraceAttributeValue,
} from "./observability/index.js";
export {
  resilienceEventsOf,
  type ResilienceEvent,
  type RetryEvent,
  type Subscription,
  type ToolBulkheadRejectEvent,
  type ToolCircuitEvent,
  type ToolGiveUpEvent,
} from "./resilience/index.js";
export { PLUGIN_TRAITS } from "./plugin.js";
