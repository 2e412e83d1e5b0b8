import { isUntrustedOutcome, type ChatClient, type ChatResponse, type ToolOutcome } from "@needlework/core";
import type { ToolRetryReport } from "@needlework/core";
import { clientAttributes, modelErrorType } from "./client-attributes.js";
import { type Started, SpanFactory } from "./span-factory.js";
import { type DiagnosticsSpan, SPAN_KIND, SPAN_STATUS } from "./otel-types.js";
import { SETTLED_RUN_STATUSES } from "./run-statuses.js";
import { TRACE_ATTRIBUTES as A, TRACE_EVENTS } from "./trace-attributes.js";
import type { TracedRunResult, TracedRunStart } from "./traced-run.js";
import type {
  ModelCallEndTelemetry,
  ModelCallStartTelemetry,
  RunEndTelemetry,
  RunErrorTelemetry,
  RunStartTelemetry,
  RunTelemetry,
  ToolExecutionEndTelemetry,
  ToolExecutionStartTelemetry,
  ToolRetryTelemetry,
} from "./telemetry.js";

/** An `invoke_agent` span in flight: ended once, by the run's end or its error. */
interface OpenRun {
  readonly started: Started;
  ended: boolean;
}

/** An `execute_tool` span in flight, and whether its tool reads untrusted content. */
interface OpenTool {
  readonly started: Started;
  readonly untrustedReads: boolean;
}

/**
 * Spans following the OpenTelemetry GenAI conventions, as the subscriber of a run's telemetry events:
 * `invoke_agent {agent}` per run, `chat {model}` per model call, `execute_tool {tool}` per tool call
 * with a `retry` event per retry. Every attribute and message passes through `redact` before it
 * reaches the tracer. Spans are paired and parented by the ids the events carry (a run's span by its
 * run id, a call's by its model call or execution id), so the tree is right without a registered
 * context manager; with one, the context runners (`executeModelCall`, `executeTool`) make the call's
 * span the active parent of the spans its work makes (HTTP, DB, a sub-agent's run). Replayed work
 * makes no span: a replayed turn or call makes no model call or tool execution. Tracing never
 * changes a call: a tracer that throws is ignored.
 * @internal
 */
export class Tracing extends SpanFactory implements RunTelemetry {
  /** Runs by run id (or, for the deprecated `wrapRun`, by the key it was opened with). */
  private readonly runs = new Map<unknown, OpenRun>();
  private readonly models = new Map<string, Started>();
  private readonly tools = new Map<string, OpenTool>();

  /**
   * Runs `fn` now, or once the tracer is known, in the order events arrived; a promise until then
   * (a start waits on it, so the spans of its work are made once the tracer is known).
   */
  private when(fn: () => void): Promise<void> | undefined {
    if (!this.pending) {
      fn();
      return undefined;
    }
    return this.pending.then(fn);
  }

  onRunStart(event: RunStartTelemetry): Promise<void> | undefined {
    return this.when(() => {
      this.openRun(event.runId, event, event.runId);
    });
  }

  onRunEnd({ runId, result }: RunEndTelemetry): void {
    this.when(() => this.closeRun(runId, result));
  }

  onRunError({ runId, error }: RunErrorTelemetry): void {
    this.when(() => this.failRun(runId, error));
  }

  /**
   * Opens an `invoke_agent` span under the active context; its chat client names the provider.
   * `runId`, when known, goes on the span at once (so a run that crashes is found by its id too).
   */
  openRun(key: unknown, run: TracedRunStart, runId?: string): Started | undefined {
    const { [A.providerName]: provider, [A.requestModel]: model } = clientAttributes(run.chatClient);
    const attributes = this.clean({
      [A.operation]: "invoke_agent",
      [A.agentName]: run.agent,
      [A.providerName]: provider!,
      ...(model === undefined ? {} : { [A.requestModel]: model }),
      [A.runResumed]: run.resumed,
      ...(runId === undefined ? {} : { [A.runId]: runId }),
    });
    const started = this.start(`invoke_agent ${String(attributes[A.agentName])}`, SPAN_KIND.INTERNAL, attributes);
    if (started) this.runs.set(key, { started, ended: false });
    return started;
  }

  /** The run id learned after the span opened (the deprecated `observeRun`). */
  nameRun(key: unknown, runId: string): void {
    const open = this.runs.get(key);
    if (open) this.guard(() => open.started.span.setAttributes(this.clean({ [A.runId]: runId })));
  }

  /** Ends a run's span with the error it threw. */
  failRun(key: unknown, error: unknown): void {
    const open = this.runs.get(key);
    if (!open || open.ended) return;
    open.ended = true;
    this.runs.delete(key);
    this.endThrown(open.started.span, error, false, {}, modelErrorType);
  }

  /** Ends a run's span with its status, usage and health; ERROR with the reason of a run that stopped. */
  closeRun(key: unknown, result: TracedRunResult): void {
    const open = this.runs.get(key);
    if (!open || open.ended) return;
    open.ended = true;
    this.runs.delete(key);
    this.guard(() => {
      const { span } = open.started;
      const { health, usage } = result;
      const settled = SETTLED_RUN_STATUSES.has(result.status);
      span.setAttributes(
        this.clean({
          [A.runId]: result.runId,
          [A.runStatus]: result.status,
          [A.runIterations]: result.iterations,
          [A.inputTokens]: usage.inputTokens,
          [A.outputTokens]: usage.outputTokens,
          [A.runToolsOk]: health.tools_ok,
          [A.runToolsFailed]: health.tools_failed,
          [A.runToolsNotCalled]: health.tools_not_called,
          [A.runBlockingFailure]: health.blocking_failure,
          ...(settled ? {} : { [A.errorType]: result.status }),
        }),
      );
      if (!settled) span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(result.reason ?? result.status) });
      span.end();
    });
  }

  /** Runs `fn` with a run's span as the active context (the deprecated `wrapRun` runs its body there). */
  withinRun<T>(key: unknown, fn: () => T): T {
    return this.within(this.runs.get(key)?.started, fn);
  }

  private parentRun(runId: string | undefined): Started | undefined {
    return runId === undefined || runId === "" ? undefined : this.runs.get(runId)?.started;
  }

  onModelCallStart({ modelCallId, runId, chatClient }: ModelCallStartTelemetry): Promise<void> | undefined {
    return this.when(() => {
      const started = this.startChat(chatClient, this.parentRun(runId));
      if (started) this.models.set(modelCallId, started);
    });
  }

  onModelCallEnd(event: ModelCallEndTelemetry): void {
    this.when(() => {
      const started = this.models.get(event.modelCallId);
      if (!started) return;
      this.models.delete(event.modelCallId);
      const { span } = started;
      if (event.status === "ok") this.endChat(span, event.response, event.toolCalls);
      else if (event.status === "error") this.endThrown(span, event.error, event.cancelled, {}, modelErrorType);
      else
        this.guard(() => {
          span.setAttributes(this.clean({ [A.errorType]: "CANCELLED" }));
          span.setStatus({ code: SPAN_STATUS.ERROR, message: "The stream was not read to its end." });
          span.end();
        });
    });
  }

  executeModelCall<T>({ modelCallId, execute }: { modelCallId: string; execute: () => Promise<T> }): Promise<T> {
    return this.within(this.models.get(modelCallId), execute);
  }

  onToolExecutionStart(event: ToolExecutionStartTelemetry): Promise<void> | undefined {
    return this.when(() => {
      const started = this.startTool(event, this.parentRun(event.runId));
      if (started) this.tools.set(event.executionId, { started, untrustedReads: event.untrustedReads === true });
    });
  }

  onToolExecutionEnd(event: ToolExecutionEndTelemetry): void {
    this.when(() => {
      const open = this.tools.get(event.executionId);
      if (!open) return;
      this.tools.delete(event.executionId);
      const { span } = open.started;
      if (event.status === "thrown") {
        this.endThrown(span, event.error, event.cancelled, { [A.toolAttempts]: event.attempts });
        return;
      }
      // A result middleware inside the emitter turned a thrown error into an outcome: the span still records it.
      if (event.exception !== undefined) this.exceptionEvent(span, event.exception);
      const untrusted = open.untrustedReads || isUntrustedOutcome(event.outcome);
      this.endTool(span, event.outcome, event.attempts, untrusted);
    });
  }

  onToolRetry({ executionId, report }: ToolRetryTelemetry): void {
    this.when(() => {
      const open = this.tools.get(executionId);
      if (open) this.retryEvent(open.started.span, report);
    });
  }

  executeTool<T>({ executionId, execute }: { executionId: string; execute: () => Promise<T> }): Promise<T> {
    return this.within(this.tools.get(executionId)?.started, execute);
  }

  private startChat(client: ChatClient, parent: Started | undefined): Started | undefined {
    const attributes = this.clean({ [A.operation]: "chat", ...clientAttributes(client) });
    const requestModel = attributes[A.requestModel];
    const name = requestModel === undefined ? "chat" : `chat ${String(requestModel)}`;
    return this.start(name, SPAN_KIND.CLIENT, attributes, parent);
  }

  private endChat(span: DiagnosticsSpan, response: Omit<ChatResponse, "message">, toolCalls: number): void {
    this.guard(() => {
      const { usage, finishReason, model, id } = response;
      span.setAttributes(
        this.clean({
          [A.chatToolCalls]: toolCalls,
          ...(usage ? { [A.inputTokens]: usage.inputTokens, [A.outputTokens]: usage.outputTokens } : {}),
          ...(finishReason === undefined ? {} : { [A.finishReasons]: [finishReason] }),
          ...(typeof model === "string" && model !== "" ? { [A.responseModel]: model } : {}),
          ...(typeof id === "string" && id !== "" ? { [A.responseId]: id } : {}),
        }),
      );
      span.end();
    });
  }

  private startTool(event: ToolExecutionStartTelemetry, parent: Started | undefined): Started | undefined {
    if (!this.tracer) return undefined;
    const attributes = this.clean({
      [A.operation]: "execute_tool",
      [A.toolName]: event.tool,
      [A.toolCallId]: event.callId,
      [A.toolType]: "function",
      ...(event.description ? { [A.toolDescription]: event.description } : {}),
      [A.runId]: event.runId,
    });
    return this.start(`execute_tool ${String(attributes[A.toolName])}`, SPAN_KIND.INTERNAL, attributes, parent);
  }

  private endTool(span: DiagnosticsSpan, outcome: ToolOutcome | undefined, attempts: number, untrusted = false): void {
    this.guard(() => {
      const status = outcome?.status ?? "ok";
      const failed = status !== "ok";
      span.setAttributes(
        this.clean({
          [A.toolStatus]: status,
          [A.toolAttempts]: attempts,
          ...(untrusted ? { [A.toolProvenance]: "untrusted" } : {}),
          ...(failed ? { [A.errorType]: outcome?.errorCode ?? status.toUpperCase() } : {}),
        }),
      );
      if (failed) span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(outcome?.message ?? status) });
      span.end();
    });
  }

  /** A `retry` event on the call's `execute_tool` span. */
  private retryEvent(span: DiagnosticsSpan, { attempt, delayMs, errorCode, errorType }: ToolRetryReport): void {
    this.guard(() => {
      span.addEvent(
        TRACE_EVENTS.retry,
        this.clean({
          [A.retryAttempt]: attempt,
          [A.retryDelayMs]: delayMs,
          ...(errorCode === undefined ? {} : { [A.errorType]: errorCode }),
          ...(errorType === undefined ? {} : { [A.exceptionType]: errorType }),
        }),
      );
    });
  }
}
