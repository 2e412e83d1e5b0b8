import { InvalidOptionError, type OutcomeObserver, type ToolMiddleware } from "@needlework/core";
import type { OpenTelemetryOptions, OpenTelemetryPlugin } from "./open-telemetry.js";
import type { ModuleImporter } from "./otel-api.js";
import type { DiagnosticsTracer } from "./otel-types.js";
import type { TracedPipeline } from "./traced-run.js";
import { Tracing } from "./tracing.js";

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
