import {
  errorTypeName,
  mapThrownError,
  type ToolCallContext,
  type ToolOutcome,
  type ToolOutcomeStatus,
} from "@needlework/core";

/**
 * The exception behind a failure, summarized for logs: its type and its message, redacted. The
 * model never sees either (it reads the outcome's own message).
 *
 * @example
 * ```ts
 * if (record.error) log.warn(`${record.tool}: ${record.error.type}: ${record.error.message}`);
 * ```
 */
export interface DiagnosticError {
  /** The exception's class or `name` (`TypeError`, `HttpError`, ...). */
  readonly type: string;
  /** Its message, after the factory's redaction. */
  readonly message: string;
}

/**
 * One tool call as the diagnostics plugin saw it. Failures converted into envelopes by the
 * tool-result middleware count as failures here (Needlr's diagnostics recorded them as succeeded).
 *
 * `exception` keeps the original thrown value for your own logs. It is not enumerable, so
 * `JSON.stringify(record)`, `{ ...record }` and the logger hook leave it out; read it explicitly.
 *
 * @example
 * ```ts
 * usingAgentFramework(container).addAgentFunctions(OrderTools)
 *   .usingResilience().usingToolResultMiddleware()
 *   .usingDiagnostics({ sink: (record: DiagnosticRecord) => queue.push(JSON.stringify(record)) });
 * ```
 */
export interface DiagnosticRecord {
  /** Epoch milliseconds when the call ended (the `clock` option). */
  readonly time: number;
  readonly runId: string;
  readonly tool: string;
  readonly callId: string;
  readonly status: ToolOutcomeStatus;
  readonly errorCode?: string;
  /** Attempts made: 0 when the tool never ran (unknown tool, invalid arguments). */
  readonly attempts: number;
  readonly latencyMs: number;
  readonly retriable: boolean;
  /** Markers such as `RESULT_TRUNCATED` or `REDACTED`. */
  readonly flags?: readonly string[];
  /** The failure's message as the model read it (redacted); unset on success. */
  readonly message?: string;
  /** The exception behind the failure, summarized and redacted. */
  readonly error?: DiagnosticError;
  /** The call rejected `invoke` instead of returning an outcome: no tool-result middleware, or cancellation. */
  readonly thrown: boolean;
  /** The original thrown value (not enumerable; never shown to the model). */
  readonly exception?: unknown;
}

/** A record before redaction and stamping. @internal */
export type DraftRecord = { -readonly [K in keyof DiagnosticRecord]: DiagnosticRecord[K] };

function messageOf(exception: unknown): string {
  try {
    if (exception instanceof Error) return exception.message;
    return typeof exception === "string" ? exception : "";
  } catch {
    return "";
  }
}

/** The record of an outcome the invoker returned. @internal */
export function recordFromOutcome(outcome: ToolOutcome, runId: string, time: number): DraftRecord {
  const { metadata } = outcome;
  const record: DraftRecord = {
    time,
    runId,
    tool: metadata.tool,
    callId: metadata.callId,
    status: outcome.status,
    attempts: metadata.attempts,
    latencyMs: metadata.latencyMs,
    retriable: outcome.retriable,
    thrown: false,
  };
  if (outcome.errorCode !== undefined) record.errorCode = outcome.errorCode;
  if (metadata.flags !== undefined && metadata.flags.length > 0) record.flags = [...metadata.flags];
  if (outcome.status !== "ok" && outcome.message !== undefined) record.message = outcome.message;
  if (outcome.exception !== undefined) {
    record.error = { type: errorTypeName(outcome.exception), message: messageOf(outcome.exception) };
    Object.defineProperty(record, "exception", { value: outcome.exception, enumerable: false });
  }
  return record;
}

/**
 * The record of a call that threw out of the pipeline. Classified as the tool-result middleware
 * would (`mapThrownError`), or `cancelled` when the caller aborted.
 * @internal
 */
export function recordFromThrown(call: ToolCallContext, error: unknown, time: number): DraftRecord {
  // As the tool-result middleware decides: only the caller's own abort is cancellation.
  const cancelled = call.callerSignal?.aborted === true;
  const mapped = cancelled ? undefined : mapThrownError(error);
  const record: DraftRecord = {
    time,
    runId: call.runId,
    tool: call.name,
    callId: call.callId,
    status: mapped ? mapped.status : "cancelled",
    errorCode: mapped ? mapped.code : "CANCELLED",
    attempts: call.attempt,
    latencyMs: performance.now() - call.startedAt,
    retriable: mapped ? mapped.retriable : false,
    message: mapped ? mapped.message : "The call was cancelled by its caller.",
    error: { type: errorTypeName(error), message: messageOf(error) },
    thrown: true,
  };
  Object.defineProperty(record, "exception", { value: error, enumerable: false });
  return record;
}
