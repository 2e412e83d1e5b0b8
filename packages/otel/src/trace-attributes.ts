/**
 * The span and attribute names needlework emits: the OpenTelemetry GenAI semantic conventions
 * (`gen_ai.*`, `error.type`) plus a few `needlework.*` attributes of its own.
 *
 * @example
 * ```ts
 * const toolSpans = exporter.getFinishedSpans().filter((s) => s.attributes[TRACE_ATTRIBUTES.operation] === "execute_tool");
 * ```
 */
export const TRACE_ATTRIBUTES = Object.freeze({
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  providerName: "gen_ai.provider.name",
  requestTemperature: "gen_ai.request.temperature",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  serverAddress: "server.address",
  serverPort: "server.port",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  errorType: "error.type",
  exceptionType: "exception.type",
  exceptionMessage: "exception.message",
  runId: "needlework.run.id",
  runStatus: "needlework.run.status",
  runResumed: "needlework.run.resumed",
  runIterations: "needlework.run.iterations",
  runToolsOk: "needlework.run.tools_ok",
  runToolsFailed: "needlework.run.tools_failed",
  runToolsNotCalled: "needlework.run.tools_not_called",
  runBlockingFailure: "needlework.run.blocking_failure",
  toolStatus: "needlework.tool.status",
  toolAttempts: "needlework.tool.attempts",
  /** `"untrusted"` on a call whose result is third-party text (`@AgentFunction({ reads: "untrusted" })`). */
  toolProvenance: "needlework.tool.provenance",
  chatToolCalls: "needlework.chat.tool_calls",
  retryAttempt: "needlework.retry.attempt",
  retryDelayMs: "needlework.retry.delay_ms",
});

/**
 * Event names: `retry` on an `execute_tool` span each time resilience schedules another attempt;
 * `exception` (OpenTelemetry's name) with the redacted type and message of a thrown error.
 *
 * @example
 * ```ts
 * const retries = span.events.filter((e) => e.name === TRACE_EVENTS.retry).length;
 * ```
 */
export const TRACE_EVENTS = Object.freeze({ retry: "retry", exception: "exception" });
