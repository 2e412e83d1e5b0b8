import type { OutcomeObserver, ToolCallContext, ToolMiddleware } from "@needlework/core";
import { scrubSecrets } from "@needlework/core/kit";
import { composeTelemetry, openTelemetry } from "@needlework/otel";
import { type AgentFrameworkPlugin, PLUGIN_TRAITS, type PluginContext } from "../plugin.js";
import { type DiagnosticRecord, type DraftRecord, recordFromOutcome, recordFromThrown } from "./diagnostic-record.js";
import { logRecord } from "./diagnostics-logger.js";
import { DiagnosticsCollector, type DiagnosticsMetrics } from "./diagnostics-metrics.js";
import {
  type DiagnosticsOptions,
  type ResolvedDiagnosticsOptions,
  resolveDiagnosticsOptions,
} from "./diagnostics.options.js";
import { runLogTelemetry } from "./instrument-agent.js";

/**
 * The plugin behind `usingDiagnostics()`; `metrics` holds what it collected.
 *
 * @example
 * ```ts
 * const diagnostics: DiagnosticsPlugin = diagnosticsPlugin({ maxRecords: 500 });
 * const factory = usingAgentFramework(container).addAgentFunctions(OrderTools).usingToolResultMiddleware().usingPlugin(diagnostics).buildAgentFactory();
 * diagnostics.metrics.tools();
 * ```
 */
export interface DiagnosticsPlugin extends AgentFrameworkPlugin {
  readonly name: "diagnostics";
  readonly options: ResolvedDiagnosticsOptions;
  /** Records and per-tool counters; the same object as `factory.metrics`. */
  readonly metrics: DiagnosticsMetrics;
  /**
   * Resolves once the tracer is known (`@opentelemetry/api` is looked for lazily, once). Spans
   * before that are still made; await it in tests that count spans of calls the pipeline never ran.
   */
  ready(): Promise<void>;
}

const identity = (value: unknown): unknown => value;

/**
 * The plugin behind `usingDiagnostics(options)`. Register it last (outermost), after
 * `usingRedaction()`: it then sees every call's final outcome, as the model read it.
 *
 * - A record per call (run id, tool, call id, status, error code, attempts, latency, retriable,
 *   time; the exception kept for logs, never for the model) in a ring buffer of `maxRecords`, and
 *   passed to `sink`. Outcomes come from the invoker's observer, so unknown tools and invalid
 *   arguments are recorded too; values thrown out of the pipeline (no tool-result middleware, or
 *   cancellation) are recorded by its middleware and rethrown.
 * - Failures the tool-result middleware turned into envelopes count as failures (Needlr's
 *   diagnostics recorded them as succeeded).
 * - Per-tool counters and latency percentiles over a bounded reservoir (`metrics.tools()`).
 * - Messages and exception text pass through every plugin's `redact` (the redaction plugin) first.
 * - With `logger`, failures and run endings are logged; with `tracer`, OpenTelemetry spans follow
 *   the GenAI conventions (`invoke_agent`, `chat`, `execute_tool` with a `retry` event per retry),
 *   made by `@needlework/otel` (its `openTelemetry()` makes the same spans without this plugin).
 *
 * @example
 * ```ts
 * const factory = usingAgentFramework(container)
 *   .addAgentFunctions(OrderTools)
 *   .usingResilience()
 *   .usingToolResultMiddleware()
 *   .usingRedaction()
 *   .usingPlugin(diagnosticsPlugin({ logger: console }))
 *   .buildAgentFactory();
 * ```
 */
export function diagnosticsPlugin(options?: DiagnosticsOptions): DiagnosticsPlugin {
  const resolved = resolveDiagnosticsOptions(options);
  const { sink, logger, clock } = resolved;
  const collector = new DiagnosticsCollector(resolved.maxRecords, resolved.latencySamples, resolved.random);
  // With a tracer, the spans are `@needlework/otel`'s: its plugin, set up in this one's pipeline, is
  // the tracer's subscriber (run and chat spans from the runs' telemetry events, tool spans from the
  // tool-execution events its middleware and observer emit here); this plugin keeps records,
  // metrics and logs (run log lines from the same events).
  const tracing =
    resolved.tracer === undefined
      ? undefined
      : openTelemetry({ tracer: resolved.tracer, instrumentationScope: "@needlework/workflows" });
  let traceCall: ToolMiddleware | undefined;
  let traceNeverRun: OutcomeObserver | undefined;
  // Thrown values the middleware recorded: when an outer layer turns one into an outcome (the
  // plugin registered inside the tool-result middleware), the observer must not count it again.
  const recordedThrows = new WeakSet<object>();
  let redact: (value: unknown) => unknown = identity;
  let plugin: DiagnosticsPlugin;

  const setUp = (context: PluginContext): void => {
    collector.addKnownTools(context.tools.map((t) => t.name));
    const redactors = context.plugins.filter((p) => p !== plugin && typeof p.redact === "function");
    redact = redactors.length === 0 ? identity : (value) => redactors.reduce<unknown>((v, p) => p.redact!(v), value);
    // The tracer's plugin scrubs with the same redactors (it leaves out itself, and this plugin redacts
    // nothing); set up again with each factory this plugin is built into, as this plugin is.
    if (tracing) {
      traceCall = tracing.createMiddleware(context);
      traceNeverRun = tracing.createObserver(context);
    }
  };
  // `redact` is known once the pipeline is set up: read it when a run ends, not now.
  const runLogs = logger === undefined ? undefined : runLogTelemetry(logger, (value) => redact(value));

  const emit = (draft: DraftRecord): void => {
    if (redact !== identity && (draft.message !== undefined || draft.error !== undefined)) {
      const scrubbed = redact({ message: draft.message, error: draft.error }) as Pick<DraftRecord, "message" | "error">;
      if (draft.message !== undefined && typeof scrubbed.message === "string") draft.message = scrubbed.message;
      if (draft.error !== undefined && scrubbed.error !== undefined) draft.error = scrubbed.error;
    }
    // The default secret detectors apply with or without usingRedaction(), as for log lines: a
    // record goes to a sink (a log pipeline, an analytics store) the model never reads.
    if (draft.message !== undefined) draft.message = scrubSecrets(draft.message);
    if (draft.error !== undefined) draft.error = { ...draft.error, message: scrubSecrets(draft.error.message) };
    const record: DiagnosticRecord = Object.freeze(draft);
    collector.add(record);
    if (sink) {
      try {
        const pending = sink(record);
        if (pending && typeof (pending as Promise<void>).then === "function")
          (pending as Promise<void>).then(undefined, () => undefined);
      } catch {
        // A broken sink must never change what the caller gets.
      }
    }
    if (logger) logRecord(logger, record);
  };

  const onThrown = (call: ToolCallContext, error: unknown): void => {
    if (typeof error === "object" && error !== null) recordedThrows.add(error);
    emit(recordFromThrown(call, error, clock()));
  };

  const observer: OutcomeObserver = (outcome, info) => {
    const { exception } = outcome;
    if (typeof exception === "object" && exception !== null && recordedThrows.has(exception)) return;
    emit(recordFromOutcome(outcome, info.runId, clock()));
    traceNeverRun?.(outcome, info);
  };

  const middleware: ToolMiddleware = (call, next) =>
    (traceCall ? traceCall(call, next) : next()).catch((error: unknown) => {
      onThrown(call, error);
      throw error;
    });

  plugin = {
    name: "diagnostics",
    options: resolved,
    metrics: collector,
    describe: () =>
      `diagnostics(maxRecords ${resolved.maxRecords}, ${resolved.latencySamples} latency samples per tool${sink ? ", sink" : ""}${logger ? ", logger" : ""}${tracing ? ", OpenTelemetry tracing" : ""})`,
    createMiddleware: (context) => {
      setUp(context);
      return middleware;
    },
    createObserver: (context) => {
      setUp(context);
      return observer;
    },
    ready: () => tracing?.ready() ?? Promise.resolve(),
    ...(tracing === undefined && runLogs === undefined
      ? {}
      : {
          telemetry: (context: PluginContext) => {
            setUp(context);
            return composeTelemetry([tracing?.telemetry(context), runLogs]);
          },
        }),
    ...(tracing === undefined ? {} : { traits: [PLUGIN_TRAITS.tracesRuns] }),
  };
  return plugin;
}

/**
 * The metrics of the outermost plugin that collects them (`usingDiagnostics()`), for `factory.metrics`.
 * @internal
 */
export function metricsOf(plugins: readonly AgentFrameworkPlugin[]): DiagnosticsMetrics | undefined {
  for (let i = plugins.length - 1; i >= 0; i--) {
    const { metrics } = plugins[i] as Partial<DiagnosticsPlugin>;
    if (typeof metrics?.tools === "function") return metrics;
  }
  return undefined;
}
