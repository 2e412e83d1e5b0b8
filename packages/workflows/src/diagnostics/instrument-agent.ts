import { errorTypeName } from "@needlework/core";
import { type RunTelemetry, SETTLED_RUN_STATUSES } from "@needlework/otel";
import type { AgentRunResult } from "@needlework/core/events";
import { type DiagnosticsLogger, logRunEnd, logRunError } from "./diagnostics-logger.js";

function redactedText(redact: (value: unknown) => unknown, text: string): string {
  const value = redact(text);
  return typeof value === "string" ? value : "";
}

/**
 * The diagnostics plugin's run log lines, as a subscriber of the runs' telemetry events: one line
 * as each run of the factory's agents ends (info when settled, warn otherwise, its reason redacted),
 * and one when a started run throws (its type and redacted message). `redact` is read when the
 * event arrives (the pipeline's redaction is known once the factory is built). @internal
 */
export function runLogTelemetry(logger: DiagnosticsLogger, redact: (value: unknown) => unknown): RunTelemetry {
  return {
    onRunEnd({ agent, result }) {
      // Workflows emits each run's own result: the log line reads its calls too.
      const run = result as AgentRunResult;
      const reason = "reason" in run ? redactedText(redact, run.reason) : undefined;
      logRunEnd(logger, agent, run, SETTLED_RUN_STATUSES.has(run.status), reason);
    },
    onRunError({ agent, error }) {
      let message = "";
      try {
        message = error instanceof Error ? error.message : String(error);
      } catch {
        // Unprintable: the type is enough.
      }
      logRunError(logger, agent, { type: errorTypeName(error), message: redactedText(redact, message) });
    },
  };
}
