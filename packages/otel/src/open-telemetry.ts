import type { AgentEvent } from "@needlework/core/events";
import { type ChatClient, InvalidOptionError, type OutcomeObserver, type ToolMiddleware } from "@needlework/core";
import type { DiagnosticsTracer } from "./otel-types.js";
import { runShims } from "./run-shims.js";
import type { RunTelemetry } from "./telemetry.js";
import { telemetryChatClient, toolTelemetry } from "./telemetry-emitters.js";
import type { TracedPipeline, TracedRun, TracedRunEvent, TracedRunResult, TracedRunStart } from "./traced-run.js";
import { Tracing } from "./tracing.js";

/**
 * Options of {@link openTelemetry}.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * const options: OpenTelemetryOptions = { tracer: trace.getTracer("support-bot") };
 * ```
 */
export interface OpenTelemetryOptions {
  /**
   * An OpenTelemetry tracer (`trace.getTracer("my-app")`), or `"global"` for the global tracer
   * provider's (a no-op when `@opentelemetry/api` is not installed).
   */
  readonly tracer: DiagnosticsTracer | "global";
  /**
   * The instrumentation scope of the global provider's tracer (`tracer: "global"`), default
   * `@needlework/otel`: a plugin of yours that makes its spans through this one names itself here
   * (`usingDiagnostics({ tracer: "global" })` names `@needlework/workflows`).
   */
  readonly instrumentationScope?: string;
}

/** The trait of a plugin that makes spans for runs and calls (workflows' `PLUGIN_TRAITS.tracesRuns`). */
const TRACES_RUNS = "traces-runs";

/**
 * What {@link openTelemetry} returns: a plugin for the builder's `usingPlugin(...)` (its shape fits
 * workflows' `AgentFrameworkPlugin`; nothing here imports workflows), and the subscriber the
 * diagnostics plugin (`usingDiagnostics({ tracer })`) delegates its spans to.
 *
 * @example
 * ```ts
 * const otel: OpenTelemetryPlugin = openTelemetry({ tracer: trace.getTracer("support-bot") });
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingToolResultMiddleware().usingPlugin(otel);
 * ```
 */
export interface OpenTelemetryPlugin {
  readonly name: "opentelemetry";
  /**
   * `["traces-runs"]` (workflows' `PLUGIN_TRAITS.tracesRuns`): a builder that also has
   * `usingDiagnostics({ tracer })` warns that every span would be made twice (NW011).
   */
  readonly traits: readonly string[];
  /** One line for `factory.describePipeline()`. */
  describe(): string;
  /**
   * The subscriber of every run's telemetry events (workflows' `AgentFrameworkPlugin.telemetry`):
   * `invoke_agent` spans from the run's start and end (or error), `chat` spans from its model calls,
   * `execute_tool` spans from its tool executions; the pipeline's redaction (read from `context`) applies.
   */
  telemetry(context: TracedPipeline): RunTelemetry;
  /**
   * The tool-execution emitter at this plugin's place in the pipeline (`toolTelemetry` over its
   * subscriber): an `execute_tool {tool}` span per call, a `retry` event per retry; direct calls
   * (`factory.tools.invoke()`) included.
   */
  createMiddleware(context: TracedPipeline): ToolMiddleware;
  /** The emitter's observer: `execute_tool` spans for the calls the pipeline never ran (unknown tool, invalid arguments). */
  createObserver(context: TracedPipeline): OutcomeObserver;
  /**
   * One `invoke_agent {agent}` span around `body`, named by the run id `observeRun` learns inside it.
   * Without a registered context manager, spans made inside are not parented under it.
   * @deprecated Emit the run's events to `telemetry(context)` (`onRunStart`, `onRunEnd`, `onRunError`).
   */
  wrapRun<R extends TracedRunResult>(run: TracedRunStart, body: () => Promise<R>): Promise<R>;
  /**
   * The client with each call (streamed or not) in a `chat {model}` span under the active context.
   * @deprecated Use `telemetryChatClient(client, plugin.telemetry(context), runId)`.
   */
  wrapChatClient(client: ChatClient): ChatClient;
  /**
   * The subscriber of a run's events for the oldest `wrapRun` of the same agent not yet named:
   * it names its span and closes it from the `run-end` event; undefined outside any `wrapRun`.
   * @deprecated Emit the run's events to `telemetry(context)`.
   */
  observeRun(run: TracedRun): ((event: AgentEvent | TracedRunEvent) => void) | undefined;
  /**
   * Resolves once the tracer is known (`@opentelemetry/api` is looked for lazily, once). Spans
   * before that are still made; await it in tests that count spans of calls the pipeline never ran.
   */
  ready(): Promise<void>;
}

const TRACER = 'must be an OpenTelemetry tracer (trace.getTracer("my-app")) or "global"';
const SCOPE = "must be a package's name (a non-empty string)";

/**
 * OpenTelemetry spans following the GenAI semantic conventions, without the diagnostics plugin:
 * `invoke_agent` per run, `chat` per model call, `execute_tool` per tool call (a `retry` event per
 * retry). Register it with `usingPlugin(openTelemetry({ tracer }))` last, after `usingRedaction()`,
 * as `usingDiagnostics()` would be. Use `usingDiagnostics({ tracer })` instead when you also want the
 * diagnostics records, metrics and logs: it makes the same spans through this package.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { openTelemetry } from "@needlework/otel";
 * const factory = usingAgentFramework(container)
 *   .addAgentFunctions(OrderTools)
 *   .usingToolResultMiddleware()
 *   .usingRedaction()
 *   .usingPlugin(openTelemetry({ tracer: trace.getTracer("support-bot") }))
 *   .buildAgentFactory();
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions): OpenTelemetryPlugin {
  const { tracer, instrumentationScope: scope } = (options ?? {}) as Partial<
    Record<keyof OpenTelemetryOptions, unknown>
  >;
  if (tracer !== "global" && typeof (tracer as { startSpan?: unknown } | null | undefined)?.startSpan !== "function")
    throw new InvalidOptionError("tracer", tracer, `openTelemetry: option 'tracer' ${TRACER}.`);
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw new InvalidOptionError(
      "instrumentationScope",
      scope,
      `openTelemetry: option 'instrumentationScope' ${SCOPE}.`,
    );
  const tracing = new Tracing(tracer as DiagnosticsTracer | "global", scope);
  let plugin: OpenTelemetryPlugin;
  // The pipeline's redaction is known once the factory is built: every attribute and message passes through it.
  const setUp = ({ plugins }: TracedPipeline): void => {
    const redactors = plugins.filter((p) => p !== plugin && typeof p.redact === "function");
    tracing.redact =
      redactors.length === 0 ? (value) => value : (value) => redactors.reduce<unknown>((v, p) => p.redact!(v), value);
  };
  // The plugin's own tool emitter: what the factory installs at its place in the pipeline.
  const tools = toolTelemetry(tracing);
  const shims = runShims(tracing);
  plugin = {
    name: "opentelemetry",
    traits: [TRACES_RUNS],
    describe: () => `opentelemetry(${tracer === "global" ? "global tracer" : "tracer"})`,
    telemetry: (context) => {
      setUp(context);
      return tracing;
    },
    createMiddleware: (context) => {
      setUp(context);
      return tools.middleware;
    },
    createObserver: (context) => {
      setUp(context);
      return tools.observer;
    },
    wrapRun: (run, body) => shims.wrapRun(run, body),
    wrapChatClient: (client) => telemetryChatClient(client, tracing),
    observeRun: (run) => shims.observeRun(run),
    ready: () => tracing.ready(),
  };
  return plugin;
}
