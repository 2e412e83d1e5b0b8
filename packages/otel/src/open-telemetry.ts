import { type ChatClient, InvalidOptionError, type OutcomeObserver, type ToolMiddleware } from "@needlework/core";
import type { ModuleImporter } from "./otel-api.js";
import type { DiagnosticsTracer } from "./otel-types.js";
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
  /** `execute_tool {tool}` spans around each call, a `retry` event per retry; the pipeline's redaction applies. */
  createMiddleware(context: TracedPipeline): ToolMiddleware;
  /** `execute_tool` spans for the calls the pipeline never ran (unknown tool, invalid arguments). */
  createObserver(context: TracedPipeline): OutcomeObserver;
  /** One `invoke_agent {agent}` span per run, the parent of its `chat` and `execute_tool` spans. */
  wrapRun<R extends TracedRunResult>(run: TracedRunStart, body: () => Promise<R>): Promise<R>;
  /** The agent's chat client with each call (streamed or not) in a `chat {model}` span. */
  wrapChatClient(client: ChatClient): ChatClient;
  /** The subscriber of a run's events: it closes the run's span from its `run-end` event. */
  observeRun(run: TracedRun): ((event: TracedRunEvent) => void) | undefined;
  /**
   * Resolves once the tracer is known (`@opentelemetry/api` is looked for lazily, once). Spans
   * before that are still made; await it in tests that count spans of calls the pipeline never ran.
   */
  ready(): Promise<void>;
}

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
  return createOpenTelemetry(options);
}

const TRACER = 'must be an OpenTelemetry tracer (trace.getTracer("my-app")) or "global"';

/** How the span code is set up beyond the public options (tests, and the diagnostics plugin). @internal */
export interface OpenTelemetrySetup {
  /** Loads `@opentelemetry/api`; tests pass one that fails to simulate a missing package. */
  readonly importer?: ModuleImporter;
  /** The instrumentation scope of the global provider's tracer. Default `@needlework/otel`. */
  readonly instrumentationScope?: string;
}

/** `openTelemetry` with its setup injectable. @internal */
export function createOpenTelemetry(
  options: OpenTelemetryOptions,
  setup: OpenTelemetrySetup = {},
): OpenTelemetryPlugin {
  const tracer: unknown = (options as Partial<OpenTelemetryOptions> | undefined)?.tracer;
  if (tracer !== "global" && typeof (tracer as { startSpan?: unknown } | null | undefined)?.startSpan !== "function")
    throw new InvalidOptionError("tracer", tracer, `openTelemetry: option 'tracer' ${TRACER}.`);
  const tracing = new Tracing(tracer as DiagnosticsTracer | "global", setup.importer, setup.instrumentationScope);
  let plugin: OpenTelemetryPlugin;
  // The pipeline's redaction is known once the factory is built: every attribute and message passes through it.
  const setUp = ({ plugins }: TracedPipeline): void => {
    const redactors = plugins.filter((p) => p !== plugin && typeof p.redact === "function");
    tracing.redact =
      redactors.length === 0 ? (value) => value : (value) => redactors.reduce<unknown>((v, p) => p.redact!(v), value);
  };
  const middleware: ToolMiddleware = (call, next) => tracing.traceTool(call, next);
  // Calls the pipeline never ran get their span here; the middleware spans the others.
  const observer: OutcomeObserver = (outcome, info) => {
    if (outcome.metadata.attempts === 0) tracing.instantTool(outcome, info);
  };
  plugin = {
    name: "opentelemetry",
    traits: [TRACES_RUNS],
    describe: () => `opentelemetry(${tracer === "global" ? "global tracer" : "tracer"})`,
    createMiddleware: (context) => {
      setUp(context);
      return middleware;
    },
    createObserver: (context) => {
      setUp(context);
      return observer;
    },
    wrapRun: (run, body) => tracing.traceRun(run, body),
    wrapChatClient: (client) => tracing.instrumentChatClient(client),
    observeRun: (run) => tracing.observeRun(run),
    ready: () => tracing.ready(),
  };
  return plugin;
}
