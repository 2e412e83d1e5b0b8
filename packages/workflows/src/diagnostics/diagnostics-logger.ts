import type { AgentRunResult } from "@needlework/core/events";
import { scrubSecrets, scrubSecretsDeep } from "@needlework/core/kit";
import type { DiagnosticRecord } from "./diagnostic-record.js";
import { plural } from "../text/plural.js";

/**
 * One log method. needlework always calls it as `(obj, msg)`: a plain object of fields first, then
 * a one-line message. That is pino's (and bunyan's) native order; `console` prints the object and
 * then the message.
 *
 * @example
 * ```ts
 * const info: DiagnosticsLogFn = (obj, msg) => process.stdout.write(`${msg} ${JSON.stringify(obj)}\n`);
 * ```
 */
export type DiagnosticsLogFn = (obj: Record<string, unknown>, msg?: string) => void;

/**
 * The logger hook of `usingDiagnostics({ logger })`: a pino logger, `console`, or anything with
 * these methods. `debug` is optional (successful calls are logged there, and not at all without it).
 * Levels: `debug` a call that succeeded, `info` a cancelled call or a run that ended normally,
 * `warn` a call that failed (an envelope the model read) or a run that ended escalated,
 * dead-lettered or at a limit, `error` a call whose exception escaped the pipeline or a run that
 * threw. Fields are redacted like the records; the raw exception is never passed.
 *
 * @example
 * ```ts
 * import pino from "pino";
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingDiagnostics({ logger: pino() });
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingDiagnostics({ logger: console });
 * ```
 */
export interface DiagnosticsLogger {
  debug?: DiagnosticsLogFn;
  info: DiagnosticsLogFn;
  warn: DiagnosticsLogFn;
  error: DiagnosticsLogFn;
}

type Level = "debug" | "info" | "warn" | "error";

function write(logger: DiagnosticsLogger, level: Level, obj: Record<string, unknown>, msg: string): void {
  try {
    // Every line passes the default secret detectors, with or without `usingRedaction()`.
    const safeObj = scrubSecretsDeep(obj) as Record<string, unknown>;
    const safeMsg = scrubSecrets(msg);
    // Called as a method: pino's methods need `this`.
    if (level === "debug") logger.debug?.(safeObj, safeMsg);
    else logger[level](safeObj, safeMsg);
  } catch {
    // A broken logger must never change what the caller gets.
  }
}

/** Logs one call record at the level its status calls for. @internal */
export function logRecord(logger: DiagnosticsLogger, record: DiagnosticRecord): void {
  const level: Level =
    record.status === "ok" ? "debug" : record.status === "cancelled" ? "info" : record.thrown ? "error" : "warn";
  if (level === "debug" && logger.debug === undefined) return;
  const code = record.errorCode === undefined ? "" : ` ${record.errorCode}`;
  const msg = `tool ${record.tool} ${record.status}${code} (${plural(record.attempts, "attempt")}, ${Math.round(record.latencyMs)} ms)`;
  write(logger, level, { ...record }, msg);
}

/** Logs how a run ended. @internal */
export function logRunEnd(
  logger: DiagnosticsLogger,
  agent: string,
  result: AgentRunResult,
  settled: boolean,
  reason: string | undefined,
): void {
  const obj: Record<string, unknown> = {
    agent,
    runId: result.runId,
    status: result.status,
    iterations: result.iterations,
    calls: result.calls.length,
    health: result.health,
    silentFailure: result.silentFailure,
    usage: result.usage,
    ...(reason === undefined ? {} : { reason }),
  };
  write(logger, settled ? "info" : "warn", obj, `agent ${agent} run ${result.runId} ended ${result.status}`);
}

/** Logs a run that threw (cancellation, a tool exception without the result middleware, a hook). @internal */
export function logRunError(logger: DiagnosticsLogger, agent: string, error: { type: string; message: string }): void {
  write(logger, "error", { agent, error }, `agent ${agent} run failed: ${error.type}`);
}
