export type { DiagnosticError, DiagnosticRecord } from "./diagnostic-record.js";
export type { DiagnosticsLogFn, DiagnosticsLogger } from "./diagnostics-logger.js";
export type { DiagnosticsMetrics } from "./diagnostics-metrics.js";
export {
  DIAGNOSTICS_DEFAULTS,
  type DiagnosticsOptions,
  type ResolvedDiagnosticsOptions,
} from "./diagnostics.options.js";
export { diagnosticsPlugin, type DiagnosticsPlugin } from "./diagnostics.plugin.js";
export type { LatencySummary } from "./latency-reservoir.js";
export { type ToolMetrics, UNKNOWN_TOOL_BUCKET } from "./tool-metrics.js";
