import { errorTypeName } from "@needlework/core";
import type { AgentRunResult } from "../agent/agent-run-result.js";
import type { RunInfo } from "../plugin.js";
import type { OpenTelemetryPlugin } from "@needlework/otel";
import { SETTLED_RUN_STATUSES } from "@needlework/otel/internal";
import { type DiagnosticsLogger, logRunEnd, logRunError } from "./diagnostics-logger.js";

/** What an agent is instrumented with. @internal */
export interface AgentInstrumentation {
  /** `@needlework/otel`'s plugin, when there is a tracer: its `wrapRun` opens the run's span. */
  readonly tracing: OpenTelemetryPlugin | undefined;
  readonly logger: DiagnosticsLogger | undefined;
  readonly redact: (value: unknown) => unknown;
}

function redactedText(redact: (value: unknown) => unknown, text: string): string {
  const value = redact(text);
  return typeof value === "string" ? value : "";
}

/**
 * The diagnostics plugin's `wrapRun`: every run of the factory's agents, whichever of the six
 * methods starts it, gets one `invoke_agent` span (tool spans, made by the plugin's middleware,
 * find it through the tracing scope) and one run-end log line. Undefined when there is neither a
 * tracer nor a logger. @internal
 */
export function runWrapper(
  instrumentation: AgentInstrumentation,
): ((run: RunInfo, body: () => Promise<AgentRunResult>) => Promise<AgentRunResult>) | undefined {
  const { tracing, logger, redact } = instrumentation;
  if (!tracing && !logger) return undefined;
  return async (run, body) => {
    try {
      const result = await (tracing ? tracing.wrapRun(run, body) : body());
      if (logger) {
        const reason = "reason" in result ? redactedText(redact, result.reason) : undefined;
        logRunEnd(logger, run.agent, result, SETTLED_RUN_STATUSES.has(result.status), reason);
      }
      return result;
    } catch (error) {
      if (logger) {
        let message = "";
        try {
          message = error instanceof Error ? error.message : String(error);
        } catch {
          // Unprintable: the type is enough.
        }
        logRunError(logger, run.agent, { type: errorTypeName(error), message: redactedText(redact, message) });
      }
      throw error;
    }
  };
}
