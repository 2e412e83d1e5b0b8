// Where the telemetry events come from: a chat client that reports its model calls, and a tool
// middleware (with its outcome observer) that reports the tool calls passing its place in the
// pipeline. Workflows installs them for every subscriber; the deprecated plugin members of
// `openTelemetry()` are these same emitters over its own subscriber.
import type { ChatClient, ChatFinishPart, ChatRequest, ChatResponse, ChatStreamPart } from "@needlework/core";
import type { OutcomeObserver, ToolMiddleware } from "@needlework/core";
import { isToolOutcome, isToolResult, toToolOutcome } from "@needlework/core";
import { stringProperty } from "./client-attributes.js";
import type { RunTelemetry } from "./telemetry.js";

let sequence = 0;
const nextId = (prefix: string): string => `${prefix}_${(++sequence).toString(36)}`;

/**
 * Calls a subscriber's callback; what it throws is ignored, and a promise it returns is handed back
 * (never rejecting) for a start to wait on.
 */
function tell<E>(
  callback: ((event: E) => void | PromiseLike<void>) | undefined,
  subscriber: RunTelemetry,
  event: E,
): Promise<void> | undefined {
  if (callback === undefined) return undefined;
  try {
    const returned: unknown = callback.call(subscriber, event);
    if (typeof (returned as PromiseLike<void> | undefined)?.then === "function")
      return Promise.resolve(returned as PromiseLike<void>).then(undefined, () => undefined);
  } catch {
    // Observing must never change a run.
  }
  return undefined;
}

type Runner = <T>(options: { readonly id: string; readonly execute: () => Promise<T> }) => Promise<T>;

/**
 * Several subscribers as one: each hears every event in order (one that throws is ignored), and the
 * context runners nest, the first outermost. Undefined for none.
 *
 * @example
 * ```ts
 * const both = composeTelemetry([tracing, counter]);
 * ```
 */
export function composeTelemetry(subscribers: readonly (RunTelemetry | undefined)[]): RunTelemetry | undefined {
  const all = subscribers.filter((s): s is RunTelemetry => s !== undefined);
  if (all.length === 0) return undefined;
  if (all.length === 1) return all[0];
  const each =
    <K extends Exclude<keyof RunTelemetry, "executeModelCall" | "executeTool">>(key: K) =>
    (event: Parameters<NonNullable<RunTelemetry[K]>>[0]): Promise<void> | undefined => {
      const waits: Promise<void>[] = [];
      for (const s of all) {
        const waiting = tell(s[key] as ((e: typeof event) => void) | undefined, s, event);
        if (waiting) waits.push(waiting);
      }
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
    };
  const nest = (run: (s: RunTelemetry) => Runner | undefined): Runner => {
    return <T>(options: { readonly id: string; readonly execute: () => Promise<T> }): Promise<T> =>
      all.reduceRight<() => Promise<T>>((inner, s) => {
        const runner = run(s);
        return runner === undefined ? inner : () => runner({ id: options.id, execute: inner });
      }, options.execute)();
  };
  const models = nest((s) =>
    s.executeModelCall === undefined
      ? undefined
      : ({ id, execute }) => s.executeModelCall!({ modelCallId: id, execute }),
  );
  const tools = nest((s) =>
    s.executeTool === undefined ? undefined : ({ id, execute }) => s.executeTool!({ executionId: id, execute }),
  );
  return {
    onRunStart: each("onRunStart"),
    onRunEnd: each("onRunEnd"),
    onRunError: each("onRunError"),
    onModelCallStart: each("onModelCallStart"),
    onModelCallEnd: each("onModelCallEnd"),
    onToolExecutionStart: each("onToolExecutionStart"),
    onToolExecutionEnd: each("onToolExecutionEnd"),
    onToolRetry: each("onToolRetry"),
    executeModelCall: ({ modelCallId, execute }) => models({ id: modelCallId, execute }),
    executeTool: ({ executionId, execute }) => tools({ id: executionId, execute }),
  };
}

/**
 * Hands one event to `telemetry` (a callback that throws is ignored). What a start callback returns
 * (a promise) is handed back, for the emitter to wait on before the work starts.
 *
 * @example
 * ```ts
 * emitTelemetry(telemetry, "onRunError", { runId, agent: "crm-sync", error });
 * ```
 */
export function emitTelemetry<K extends Exclude<keyof RunTelemetry, "executeModelCall" | "executeTool">>(
  telemetry: RunTelemetry,
  key: K,
  event: Parameters<NonNullable<RunTelemetry[K]>>[0],
): Promise<void> | undefined {
  return tell(telemetry[key] as ((e: typeof event) => void) | undefined, telemetry, event);
}

/**
 * `client` reporting each model call to `telemetry` (`onModelCallStart`/`onModelCallEnd`), each run
 * by its `executeModelCall`; a streamed call included, each read of its stream in the call's context.
 * The same provider, model and endpoint. `runId`: the run the calls belong to, if any.
 *
 * @example
 * ```ts
 * const observed = telemetryChatClient(client, telemetry, "run_1");
 * ```
 */
export function telemetryChatClient(client: ChatClient, telemetry: RunTelemetry, runId?: string): ChatClient {
  const model = stringProperty(client, "model");
  const run = runId === undefined ? {} : { runId };
  const within = <T>(modelCallId: string, execute: () => Promise<T>): Promise<T> =>
    telemetry.executeModelCall === undefined ? execute() : telemetry.executeModelCall({ modelCallId, execute });
  const complete = async (request: ChatRequest): Promise<ChatResponse> => {
    const modelCallId = nextId("model");
    const waiting = emitTelemetry(telemetry, "onModelCallStart", {
      modelCallId,
      ...run,
      chatClient: client,
      streamed: false,
    });
    if (waiting) await waiting;
    let response: ChatResponse;
    try {
      response = await within(modelCallId, () => client.complete(request));
    } catch (error) {
      const cancelled = request.signal?.aborted === true;
      emitTelemetry(telemetry, "onModelCallEnd", { modelCallId, ...run, status: "error", error, cancelled });
      throw error;
    }
    const toolCalls = response.message?.toolCalls?.length ?? 0;
    emitTelemetry(telemetry, "onModelCallEnd", { modelCallId, ...run, status: "ok", response, toolCalls });
    return response;
  };
  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const modelCallId = nextId("model");
    const source = client.stream!(request);
    const waiting = emitTelemetry(telemetry, "onModelCallStart", {
      modelCallId,
      ...run,
      chatClient: client,
      streamed: true,
    });
    if (waiting) await waiting;
    const iterator = source[Symbol.asyncIterator]();
    let finish: ChatFinishPart | undefined;
    let toolCalls = 0;
    let settled = false;
    try {
      for (;;) {
        const next = await within(modelCallId, () => iterator.next());
        if (next.done) break;
        if (next.value.type === "tool-call") toolCalls++;
        else if (next.value.type === "finish") finish = next.value;
        yield next.value;
      }
      settled = true;
      emitTelemetry(telemetry, "onModelCallEnd", {
        modelCallId,
        ...run,
        status: "ok",
        response: finish ?? {},
        toolCalls,
      });
    } catch (error) {
      settled = true;
      const cancelled = request.signal?.aborted === true;
      emitTelemetry(telemetry, "onModelCallEnd", { modelCallId, ...run, status: "error", error, cancelled });
      throw error;
    } finally {
      if (!settled) {
        // The consumer stopped reading: the source is closed (its connection with it), and the end says so.
        emitTelemetry(telemetry, "onModelCallEnd", { modelCallId, ...run, status: "abandoned" });
        await iterator.return?.();
      }
    }
  }
  return {
    ...(client.provider === undefined ? {} : { provider: client.provider }),
    ...(client.endpoint === undefined ? {} : { endpoint: client.endpoint }),
    ...(model === undefined ? {} : { model }),
    complete,
    ...(typeof client.stream === "function" ? { stream } : {}),
  };
}

/**
 * The tool calls passing one place of the pipeline, reported to `telemetry`: the middleware reports
 * each call's start and end (its outcome, or the value it threw) and its retries, and runs the rest
 * of the pipeline by `executeTool`; the observer reports the calls the pipeline never ran (unknown
 * tool, invalid arguments) as a start and an end at once.
 *
 * @example
 * ```ts
 * const { middleware, observer } = toolTelemetry(telemetry);
 * createToolInvoker(container, { functions: [NoteTools], middleware: [middleware], observers: [observer] });
 * ```
 */
export function toolTelemetry(telemetry: RunTelemetry): { middleware: ToolMiddleware; observer: OutcomeObserver } {
  const middleware: ToolMiddleware = async (call, next) => {
    const executionId = nextId("tool");
    const { runId, callId, name: tool } = call;
    const description = call.tool.description;
    const waiting = emitTelemetry(telemetry, "onToolExecutionStart", {
      executionId,
      runId,
      callId,
      tool,
      ...(description ? { description } : {}),
      ...(call.tool.options.reads === "untrusted" ? { untrustedReads: true } : {}),
    });
    if (waiting) await waiting;
    // Retries scheduled inside this place are reported through the call's context.
    const outer = call.report;
    call.report = (report) => {
      if (report.type === "tool-retry") emitTelemetry(telemetry, "onToolRetry", { executionId, report });
      outer?.(report);
    };
    const ids = { executionId, runId, callId, tool };
    try {
      const value =
        telemetry.executeTool === undefined
          ? await next()
          : await telemetry.executeTool({ executionId, execute: next });
      const outcome = isToolOutcome(value) ? value : isToolResult(value) ? toToolOutcome(value) : undefined;
      // A result middleware inside this place turned a thrown error into an outcome: it is still reported.
      const exception = isToolOutcome(value)
        ? value.exception
        : isToolResult(value) && value.kind === "fail"
          ? value.exception
          : undefined;
      const end = { ...ids, attempts: call.attempt, status: "returned" as const, outcome };
      emitTelemetry(telemetry, "onToolExecutionEnd", exception === undefined ? end : { ...end, exception });
      return value;
    } catch (error) {
      const cancelled = call.callerSignal?.aborted === true;
      emitTelemetry(telemetry, "onToolExecutionEnd", {
        ...ids,
        attempts: call.attempt,
        status: "thrown",
        error,
        cancelled,
      });
      throw error;
    } finally {
      call.report = outer;
    }
  };
  const observer: OutcomeObserver = (outcome, info) => {
    if (outcome.metadata.attempts !== 0) return;
    const executionId = nextId("tool");
    const ids = { executionId, runId: info.runId, callId: info.callId, tool: info.name };
    const description = info.tool?.description;
    emitTelemetry(telemetry, "onToolExecutionStart", { ...ids, ...(description ? { description } : {}) });
    emitTelemetry(telemetry, "onToolExecutionEnd", { ...ids, attempts: 0, status: "returned", outcome });
  };
  return { middleware, observer };
}
