import { AsyncLocalStorage } from "node:async_hooks";
import { errorTypeName, type InvokeInfo, isToolOutcome, isToolResult, mapThrownError, type ToolCallContext, type ToolOutcome, toToolOutcome } from "@needlework/core";
import type { AgentRunResult } from "../agent/agent-run-result.js";
import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import { loadOtelApi, type ModuleImporter } from "./otel-api.js";
import { type DiagnosticsSpan, type DiagnosticsTracer, type OtelApi, SPAN_KIND, SPAN_STATUS, type TraceAttributes } from "./otel-types.js";
import type { ToolRetryEvent } from "../resilience/resilience-events.js";
import { TRACE_ATTRIBUTES as A, SETTLED_RUN_STATUSES, TRACE_EVENTS } from "./trace-attributes.js";

/** The instrumentation scope of spans made from the global tracer provider. */
const TRACER_NAME = "@needlework/workflows";

interface Started {
  readonly span: DiagnosticsSpan;
  /** The OTel context holding the span (undefined without `@opentelemetry/api`). */
  readonly context: unknown;
}

function stringProperty(value: unknown, key: string): string | undefined {
  try {
    const property = (value as Record<string, unknown> | undefined)?.[key];
    return typeof property === "string" && property !== "" ? property : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Spans following the OpenTelemetry GenAI conventions: `invoke_agent {agent}` per run, `chat
 * {model}` per model call, `execute_tool {tool}` per tool call with a `retry` event per retry.
 * Every attribute and message passes through `redact` before it reaches the tracer. Spans are
 * parented explicitly (the run's span is kept in an AsyncLocalStorage), so the tree is right even
 * without a registered context manager; with one, the tool's own spans (HTTP, DB) nest under its
 * `execute_tool` span. Tracing never changes a call: a tracer that throws is ignored.
 * @internal
 */
export class Tracing {
  redact: (value: unknown) => unknown = (value) => value;
  private api: OtelApi | undefined;
  private tracer: DiagnosticsTracer | undefined;
  private pending: Promise<void> | undefined;
  private readonly scope = new AsyncLocalStorage<unknown>();
  /** The `execute_tool` spans of calls in flight, by run and call id: where retry events go. */
  private readonly toolSpans = new Map<string, DiagnosticsSpan>();

  constructor(option: DiagnosticsTracer | "global", importer?: ModuleImporter) {
    this.pending = loadOtelApi(importer).then((api) => {
      this.api = api;
      try {
        this.tracer = option === "global" ? api?.trace.getTracer(TRACER_NAME) : option;
      } catch {
        this.tracer = undefined;
      }
      this.pending = undefined;
    });
  }

  /** Resolves once `@opentelemetry/api` was looked for and the tracer is known. */
  ready(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }

  /** A tracer is in use (after `ready()`). */
  get active(): boolean {
    return this.tracer !== undefined;
  }

  /** Wraps one agent run (or resume) in an `invoke_agent` span. */
  async traceRun(agent: string, resumed: boolean, run: () => Promise<AgentRunResult>): Promise<AgentRunResult> {
    if (this.pending) await this.pending;
    const attributes = this.clean({ [A.operation]: "invoke_agent", [A.agentName]: agent, [A.runResumed]: resumed });
    const started = this.start(`invoke_agent ${String(attributes[A.agentName])}`, SPAN_KIND.INTERNAL, attributes);
    if (!started) return run();
    let result: AgentRunResult;
    try {
      result = await this.within(started, run);
    } catch (error) {
      this.endThrown(started.span, error, false, {});
      throw error;
    }
    this.guard(() => {
      const { span } = started;
      const { health, usage } = result;
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
          ...(SETTLED_RUN_STATUSES.has(result.status) ? {} : { [A.errorType]: result.status }),
        }),
      );
      if (!SETTLED_RUN_STATUSES.has(result.status)) span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(result.reason ?? result.status) });
      span.end();
    });
    return result;
  }

  /** Wraps one model call in a `chat {model}` span. */
  async traceChat(client: ChatClient, request: ChatRequest): Promise<ChatResponse> {
    if (this.pending) await this.pending;
    const model = stringProperty(client, "model");
    const provider = stringProperty(client, "provider");
    const attributes = this.clean({ [A.operation]: "chat", ...(model === undefined ? {} : { [A.requestModel]: model }), ...(provider === undefined ? {} : { [A.providerName]: provider }) });
    const requestModel = attributes[A.requestModel];
    const started = this.start(requestModel === undefined ? "chat" : `chat ${String(requestModel)}`, SPAN_KIND.CLIENT, attributes);
    if (!started) return client.complete(request);
    let response: ChatResponse;
    try {
      response = await this.within(started, () => client.complete(request));
    } catch (error) {
      this.endThrown(started.span, error, request.signal?.aborted === true, {});
      throw error;
    }
    this.guard(() => {
      const { span } = started;
      span.setAttributes(
        this.clean({
          [A.chatToolCalls]: response.message?.toolCalls?.length ?? 0,
          ...(response.usage ? { [A.inputTokens]: response.usage.inputTokens, [A.outputTokens]: response.usage.outputTokens } : {}),
          ...(response.finishReason === undefined ? {} : { [A.finishReasons]: [response.finishReason] }),
        }),
      );
      span.end();
    });
    return response;
  }

  /** Wraps one tool call (the middleware's `next`) in an `execute_tool {tool}` span. */
  async traceTool(call: ToolCallContext, next: () => Promise<unknown>): Promise<unknown> {
    if (this.pending) await this.pending;
    const started = this.startTool(call.name, call.callId, call.runId, call.tool.description);
    if (!started) return next();
    const { span } = started;
    const key = `${call.runId}\u0000${call.callId}`;
    this.toolSpans.set(key, span);
    try {
      const value = await this.within(started, next);
      const outcome = isToolOutcome(value) ? value : isToolResult(value) ? toToolOutcome(value) : undefined;
      this.endTool(span, outcome, call.attempt);
      return value;
    } catch (error) {
      this.endThrown(span, error, call.callerSignal?.aborted === true, { [A.toolAttempts]: call.attempt });
      throw error;
    } finally {
      if (this.toolSpans.get(key) === span) this.toolSpans.delete(key);
    }
  }

  /** A span for a call the pipeline never ran (unknown tool, invalid arguments). */
  instantTool(outcome: ToolOutcome, info: InvokeInfo): void {
    if (this.pending) {
      void this.pending.then(() => this.instantTool(outcome, info));
      return;
    }
    const started = this.startTool(info.name, info.callId, info.runId, info.tool?.description);
    if (started) this.endTool(started.span, outcome, outcome.metadata.attempts);
  }

  private startTool(name: string, callId: string, runId: string, description: string | undefined): Started | undefined {
    if (!this.tracer) return undefined;
    const attributes = this.clean({
      [A.operation]: "execute_tool",
      [A.toolName]: name,
      [A.toolCallId]: callId,
      [A.toolType]: "function",
      ...(description ? { [A.toolDescription]: description } : {}),
      [A.runId]: runId,
    });
    return this.start(`execute_tool ${String(attributes[A.toolName])}`, SPAN_KIND.INTERNAL, attributes);
  }

  private endTool(span: DiagnosticsSpan, outcome: ToolOutcome | undefined, attempts: number): void {
    this.guard(() => {
      const status = outcome?.status ?? "ok";
      const failed = status !== "ok";
      span.setAttributes(
        this.clean({
          [A.toolStatus]: status,
          [A.toolAttempts]: attempts,
          ...(failed ? { [A.errorType]: outcome?.errorCode ?? status.toUpperCase() } : {}),
        }),
      );
      if (failed) span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(outcome?.message ?? status) });
      span.end();
    });
  }

  private endThrown(span: DiagnosticsSpan, error: unknown, cancelled: boolean, extra: TraceAttributes): void {
    this.guard(() => {
      const code = cancelled ? "CANCELLED" : mapThrownError(error).code;
      let message = "";
      try {
        message = error instanceof Error ? error.message : String(error);
      } catch {
        // An unprintable thrown value: its type is enough.
      }
      span.addEvent(TRACE_EVENTS.exception, this.clean({ [A.exceptionType]: errorTypeName(error), [A.exceptionMessage]: message }));
      span.setAttributes(this.clean({ ...extra, ...(extra[A.toolAttempts] === undefined ? {} : { [A.toolStatus]: cancelled ? "cancelled" : "error" }), [A.errorType]: code }));
      span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(message || code) });
      span.end();
    });
  }

  /** A `retry` event on the call's `execute_tool` span (diagnostics subscribes this to resilience's `onRetry`). */
  retryEvent({ runId, callId, attempt, delayMs, errorCode, errorType }: ToolRetryEvent): void {
    const span = this.toolSpans.get(`${runId}\u0000${callId}`);
    if (!span) return;
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

  private start(name: string, kind: number, attributes: TraceAttributes): Started | undefined {
    const tracer = this.tracer;
    if (!tracer) return undefined;
    try {
      const api = this.api;
      const parent = this.scope.getStore() ?? api?.context.active();
      const span = tracer.startSpan(name, { kind, attributes }, parent);
      return { span, context: api ? api.trace.setSpan(parent, span) : undefined };
    } catch {
      return undefined;
    }
  }

  /** Runs `fn` with the span as the parent of spans started inside (ours, and the OTel-active one). */
  private within<T>(started: Started, fn: () => T): T {
    const { context } = started;
    const api = this.api;
    if (context === undefined || !api) return fn();
    return this.scope.run(context, () => api.context.with(context, fn));
  }

  private clean(attributes: TraceAttributes): TraceAttributes {
    return this.redact(attributes) as TraceAttributes;
  }

  private text(message: string): string {
    const redacted = this.redact(message);
    return typeof redacted === "string" ? redacted : "";
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // A broken tracer or exporter must never change what the caller gets.
    }
  }
}
