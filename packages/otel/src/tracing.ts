import { AsyncLocalStorage } from "node:async_hooks";
import { type InvokeInfo, isToolOutcome, isToolResult } from "@needlework/core";
import type { ToolCallContext, ToolOutcome, ToolRetryReport } from "@needlework/core";
import { isUntrustedOutcome, toToolOutcome } from "@needlework/core";
import type { ChatClient, ChatFinishPart, ChatRequest, ChatResponse, ChatStreamPart } from "@needlework/core";
import { clientAttributes, modelErrorType, stringProperty } from "./client-attributes.js";
import { type Started, SpanFactory } from "./span-factory.js";
import { type DiagnosticsSpan, SPAN_KIND, SPAN_STATUS } from "./otel-types.js";
import { SETTLED_RUN_STATUSES } from "./run-statuses.js";
import { TRACE_ATTRIBUTES as A, TRACE_EVENTS } from "./trace-attributes.js";
import type { TracedRun, TracedRunEvent, TracedRunResult, TracedRunStart } from "./traced-run.js";

/** An `invoke_agent` span in flight: ended once, by the run's `run-end` event or by `traceRun`. */
interface OpenRun {
  readonly started: Started;
  ended: boolean;
}

/** The thrown value a failed outcome or `ToolResult.fail` keeps for diagnostics, if any. */
function exceptionOf(value: unknown): unknown {
  if (isToolOutcome(value)) return value.exception;
  if (isToolResult(value) && value.kind === "fail") return value.exception;
  return undefined;
}

/**
 * Spans following the OpenTelemetry GenAI conventions: `invoke_agent {agent}` per run, `chat
 * {model}` per model call, `execute_tool {tool}` per tool call with a `retry` event per retry.
 * Every attribute and message passes through `redact` before it reaches the tracer. Spans are
 * parented explicitly (the run's span is kept in an AsyncLocalStorage), so the tree is right even
 * without a registered context manager; with one, the tool's own spans (HTTP, DB) nest under its
 * `execute_tool` span. Tracing never changes a call: a tracer that throws is ignored.
 *
 * What comes from where: the run's span from `traceRun` (a plugin's `wrapRun`) and its events
 * (`observeRun`); `chat` spans from the wrapped chat client; `execute_tool` spans from the tool
 * middleware, which must run around the call to parent the tool's own spans and to see the thrown
 * error (events carry outcomes, never exceptions), and which also spans calls made outside any run
 * (`factory.tools.invoke()`), which have no event stream; retries from the call's context
 * (`ToolCallContext.report`, the same report the run turns into its `tool-retry` event), so a direct
 * call's retries are traced too; calls the pipeline never ran from the invoker's outcome observer.
 * @internal
 */
export class Tracing extends SpanFactory {
  /** The run whose body is executing here: its subscriber (`observeRun`) is asked for within the body. */
  private readonly runs = new AsyncLocalStorage<OpenRun>();

  /**
   * Wraps one agent run (or resume) in an `invoke_agent` span; its chat client names the provider.
   * The span is opened here, not from the run's `run-start` event: it must be the active parent of
   * everything the body does (chat and tool spans, the tool's own HTTP spans), and a subscriber of
   * events cannot make a span the parent of work already under way. It is closed by the run's
   * `run-end` event (see {@link observeRun}); a run that throws has no `run-end`, so it is ended here
   * with the error, and a run no subscriber heard end is ended here from its result.
   */
  async traceRun<R extends TracedRunResult>(run: TracedRunStart, body: () => Promise<R>): Promise<R> {
    if (this.pending) await this.pending;
    const { [A.providerName]: provider, [A.requestModel]: model } = clientAttributes(run.chatClient);
    const attributes = this.clean({
      [A.operation]: "invoke_agent",
      [A.agentName]: run.agent,
      [A.providerName]: provider!,
      ...(model === undefined ? {} : { [A.requestModel]: model }),
      [A.runResumed]: run.resumed,
    });
    const started = this.start(`invoke_agent ${String(attributes[A.agentName])}`, SPAN_KIND.INTERNAL, attributes);
    if (!started) return body();
    const open: OpenRun = { started, ended: false };
    let result: R;
    try {
      result = await this.runs.run(open, () => this.within(started, body));
    } catch (error) {
      if (!open.ended) {
        open.ended = true;
        this.endThrown(started.span, error, false, {}, modelErrorType);
      }
      throw error;
    }
    this.endRun(open, result);
    return result;
  }

  /**
   * The subscriber of one run's events, for the run whose body runs here (`traceRun`); undefined
   * outside a traced run. Its run id goes on the `invoke_agent` span as the run starts (so a run that
   * crashes is found by its id too), and the `run-end` event closes the span with the run's status,
   * usage and health. Replayed events add nothing: the work they stand for was traced when it ran,
   * and the tool and chat spans come from the calls themselves, never from events, so a replayed
   * `tool-result` cannot make a second span.
   */
  observeRun(run: TracedRun): ((event: TracedRunEvent) => void) | undefined {
    const open = this.runs.getStore();
    if (open === undefined) return undefined;
    this.guard(() => open.started.span.setAttributes(this.clean({ [A.runId]: run.runId })));
    return (event) => {
      // A replayed run-end is still this start's end (a resumeRun of a finished run): it closes the span.
      if (event.type === "run-end" && event.result !== undefined) this.endRun(open, event.result);
    };
  }

  private endRun(open: OpenRun, result: TracedRunResult): void {
    if (open.ended) return;
    open.ended = true;
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

  /**
   * The client the agent loop is given instead of `inner`: the same provider, model and endpoint,
   * each call in a `chat` span, a streamed one included.
   */
  instrumentChatClient(inner: ChatClient): ChatClient {
    const model = stringProperty(inner, "model");
    return {
      ...(inner.provider === undefined ? {} : { provider: inner.provider }),
      ...(inner.endpoint === undefined ? {} : { endpoint: inner.endpoint }),
      ...(model === undefined ? {} : { model }),
      complete: (request) => this.traceChat(inner, request),
      ...(typeof inner.stream === "function"
        ? { stream: (request: ChatRequest) => this.traceChatStream(inner, request) }
        : {}),
    };
  }

  /** Wraps one model call in a `chat {model}` span. */
  async traceChat(client: ChatClient, request: ChatRequest): Promise<ChatResponse> {
    if (this.pending) await this.pending;
    const started = this.startChat(client);
    if (!started) return client.complete(request);
    let response: ChatResponse;
    try {
      response = await this.within(started, () => client.complete(request));
    } catch (error) {
      this.endThrown(started.span, error, request.signal?.aborted === true, {}, modelErrorType);
      throw error;
    }
    this.endChat(started.span, response, response.message?.toolCalls?.length ?? 0);
    return response;
  }

  /** Wraps one streamed model call in a `chat {model}` span, ended by the stream's finish part (or its error). */
  async *traceChatStream(client: ChatClient, request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    if (this.pending) await this.pending;
    const source = client.stream!(request);
    const started = this.startChat(client);
    if (!started) {
      yield* source;
      return;
    }
    const iterator = source[Symbol.asyncIterator]();
    let finish: ChatFinishPart | undefined;
    let toolCalls = 0;
    let settled = false;
    try {
      for (;;) {
        const next = await this.within(started, () => iterator.next());
        if (next.done) break;
        if (next.value.type === "tool-call") toolCalls++;
        else if (next.value.type === "finish") finish = next.value;
        yield next.value;
      }
      settled = true;
      this.endChat(started.span, finish ?? {}, toolCalls);
    } catch (error) {
      settled = true;
      this.endThrown(started.span, error, request.signal?.aborted === true, {}, modelErrorType);
      throw error;
    } finally {
      if (!settled) {
        // The consumer stopped reading: the source is closed (its connection with it) and the span says so.
        this.guard(() => {
          started.span.setAttributes(this.clean({ [A.errorType]: "CANCELLED" }));
          started.span.setStatus({ code: SPAN_STATUS.ERROR, message: "The stream was not read to its end." });
          started.span.end();
        });
        await iterator.return?.();
      }
    }
  }

  private startChat(client: ChatClient): Started | undefined {
    const attributes = this.clean({ [A.operation]: "chat", ...clientAttributes(client) });
    const requestModel = attributes[A.requestModel];
    return this.start(
      requestModel === undefined ? "chat" : `chat ${String(requestModel)}`,
      SPAN_KIND.CLIENT,
      attributes,
    );
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

  /** Wraps one tool call (the middleware's `next`) in an `execute_tool {tool}` span. */
  async traceTool(call: ToolCallContext, next: () => Promise<unknown>): Promise<unknown> {
    if (this.pending) await this.pending;
    const started = this.startTool(call.name, call.callId, call.runId, call.tool.description);
    if (!started) return next();
    const { span } = started;
    // Retries scheduled inside this layer are reported through the call's context: one `retry` event each.
    const outer = call.report;
    call.report = (event) => {
      if (event.type === "tool-retry") this.retryEvent(span, event);
      outer?.(event);
    };
    try {
      const value = await this.within(started, next);
      const outcome = isToolOutcome(value) ? value : isToolResult(value) ? toToolOutcome(value) : undefined;
      // A result middleware inside this one turned a thrown error into an outcome: the span still records it.
      const exception = exceptionOf(value);
      if (exception !== undefined) this.exceptionEvent(span, exception);
      const untrusted = call.tool.options.reads === "untrusted" || isUntrustedOutcome(outcome);
      this.endTool(span, outcome, call.attempt, untrusted);
      return value;
    } catch (error) {
      this.endThrown(span, error, call.callerSignal?.aborted === true, { [A.toolAttempts]: call.attempt });
      throw error;
    } finally {
      call.report = outer;
    }
  }

  /** A span for a call the pipeline never ran (unknown tool, invalid arguments). */
  instantTool(outcome: ToolOutcome, info: InvokeInfo): void {
    if (this.pending) {
      void this.pending.then(() => this.instantTool(outcome, info));
      return;
    }
    const started = this.startTool(info.name, info.callId, info.runId, info.tool?.description);
    if (started) this.endTool(started.span, outcome, outcome.metadata.attempts, isUntrustedOutcome(outcome));
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
