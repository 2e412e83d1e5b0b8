/**
 * `@needlework/otel`: OpenTelemetry spans for needlework runs, following the GenAI semantic
 * conventions (`invoke_agent`, `chat`, `execute_tool`), made by one subscriber of a run's telemetry
 * events (`RunTelemetry`: run start, end and error, model-call and tool-execution start and end,
 * with context runners for span parenting). `openTelemetry({ tracer })` is a plugin for the
 * builder's `usingPlugin(...)`; `usingDiagnostics({ tracer })` of `@needlework/workflows` makes the
 * same spans through it. `clientSpans()` makes the client spans of a tool source of your own (as
 * `@needlework/mcp` makes its `tools/call` spans). `@opentelemetry/api` is an optional peer dependency.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { openTelemetry } from "@needlework/otel";
 * builder.usingPlugin(openTelemetry({ tracer: trace.getTracer("support-bot") }));
 * ```
 * @packageDocumentation
 */
export {
  openTelemetry,
  type OpenTelemetryOptions,
  type OpenTelemetryPlugin,
} from "./open-telemetry.js";
export {
  type ClientSpan,
  type ClientSpanFailure,
  type ClientSpans,
  type ClientSpansOptions,
  clientSpans,
} from "./client-spans.js";
export type { DiagnosticsSpan, DiagnosticsTracer, TraceAttributes, TraceAttributeValue } from "./otel-types.js";
export { SETTLED_RUN_STATUSES } from "./run-statuses.js";
export { TRACE_ATTRIBUTES, TRACE_EVENTS } from "./trace-attributes.js";
export type {
  ModelCallEndTelemetry,
  ModelCallStartTelemetry,
  RunEndTelemetry,
  RunErrorTelemetry,
  RunStartTelemetry,
  RunTelemetry,
  ToolExecutionEndTelemetry,
  ToolExecutionStartTelemetry,
  ToolRetryTelemetry,
} from "./telemetry.js";
export { composeTelemetry, emitTelemetry, telemetryChatClient, toolTelemetry } from "./telemetry-emitters.js";
export type { TracedPipeline, TracedRun, TracedRunEvent, TracedRunResult, TracedRunStart } from "./traced-run.js";
