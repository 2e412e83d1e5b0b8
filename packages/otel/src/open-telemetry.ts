import type { ChatClient, OutcomeObserver, ToolMiddleware } from "@needlework/core";
import { createOpenTelemetry } from "./create-open-telemetry.js";
import type { DiagnosticsTracer } from "./otel-types.js";
import type { TracedPipeline, TracedRun, TracedRunEvent, TracedRunResult, TracedRunStart } from "./traced-run.js";

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
