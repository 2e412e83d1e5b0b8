// The trace names and tracer types are `@needlework/otel`'s (the span code lives there): re-exported
// here, as they always were, so `@needlework/workflows` and `/diagnostics` imports keep working.
export {
  TRACE_ATTRIBUTES,
  TRACE_EVENTS,
  type DiagnosticsSpan,
  type DiagnosticsTracer,
  type TraceAttributes,
  type TraceAttributeValue,
} from "@needlework/otel";
export { formatRunReport, type RunReportOptions } from "./run-report.js";
