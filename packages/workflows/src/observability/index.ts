export type { DiagnosticsSpan, DiagnosticsTracer, TraceAttributes, TraceAttributeValue } from "./otel-types.js";
export { formatRunReport, type RunReportOptions } from "./run-report.js";
export { TRACE_ATTRIBUTES, TRACE_EVENTS } from "./trace-attributes.js";
