import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  createToolInvoker,
  InvalidOptionError,
  isToolResult,
  type ToolMiddleware,
  ToolResult,
} from "@needlework/core";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { memoryTracer } from "../test/memory-tracer.js";
import { z } from "zod";
import { openTelemetry } from "./open-telemetry.js";
import { composeTelemetry, telemetryChatClient } from "./telemetry-emitters.js";
import { TRACE_ATTRIBUTES as A } from "./trace-attributes.js";
import type { AgentEvent } from "@needlework/core/events";
import type { TracedRunResult } from "./traced-run.js";

const otel = () => memoryTracer("t");

const parentOf = (span: ReadableSpan | undefined): string | undefined => span?.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan | undefined): string | undefined => span?.spanContext().spanId;

@AgentFunctionGroup()
class NoteTools {
  static locked = 0;
  @AgentFunction({ description: "Posts a note.", input: z.object({ note: z.string() }) })
  postNote({ note }: { note: string }) {
    return NoteTools.locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : { posted: note };
  }
}

/** Retries a failed attempt once at once, reporting it through the call's context as resilience does. */
const retryOnce: ToolMiddleware = async (call, next) => {
  const first = await next();
  if (!isToolResult(first) || first.kind !== "fail") return first;
  const { callId, runId, name: tool } = call;
  call.report?.({
    type: "tool-retry",
    callId,
    runId,
    tool,
    attempt: 1,
    delayMs: 0,
    errorCode: "LOCKED",
    errorType: "ToolResult",
  });
  call.attempt = 2;
  return next();
};

const model: ChatClient & { model: string } = {
  provider: "acme",
  model: "acme-large",
  complete: async () => ({ message: { content: "Done." }, usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }),
};

const result = (status: string, extra: Partial<TracedRunResult> = {}): TracedRunResult => ({
  runId: "run_1",
  status,
  iterations: 1,
  usage: { inputTokens: 3, outputTokens: 2 },
  health: { tools_ok: 1, tools_failed: 0, tools_not_called: 0, blocking_failure: false },
  ...extra,
});

describe("openTelemetry: spans from a run's telemetry events, without workflows", () => {
  it("one invoke_agent span over its chat and execute_tool spans, closed by the run-end event, with a retry event per reported retry", async () => {
    const { tracer, named } = otel();
    const plugin = openTelemetry({ tracer });
    const pipeline = { plugins: [plugin] };
    const telemetry = plugin.telemetry(pipeline);
    NoteTools.locked = 1;
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [NoteTools],
      middleware: [plugin.createMiddleware(pipeline), retryOnce],
      observers: [plugin.createObserver(pipeline)],
    });
    const client = telemetryChatClient(model, telemetry, "run_1");
    let endedBeforeBodyReturned = false;
    // The run's events, as workflows emits them: no wrapper around the run, no shared async context.
    const body = async () => {
      telemetry.onRunStart?.({ runId: "run_1", agent: "notes", resumed: false, chatClient: model });
      await client.complete({ messages: [], tools: [] });
      await invoker.invoke({ name: "postNote", callId: "call_1", arguments: { note: "hi" } }, { runId: "run_1" });
      await invoker.invoke({ name: "nope", callId: "call_2", arguments: {} }, { runId: "run_1" });
      telemetry.onRunEnd?.({ runId: "run_1", agent: "notes", result: result("completed") });
      endedBeforeBodyReturned = named("invoke_agent notes").length === 1;
      return result("completed");
    };
    await plugin.ready();
    const returned = await body();
    expect(returned.status).toBe("completed");
    expect(endedBeforeBodyReturned).toBe(true);
    const [run] = named("invoke_agent notes");
    expect(run!.attributes).toMatchObject({
      [A.operation]: "invoke_agent",
      [A.providerName]: "acme",
      [A.requestModel]: "acme-large",
      [A.runId]: "run_1",
      [A.runStatus]: "completed",
      [A.inputTokens]: 3,
    });
    const [chat] = named("chat acme-large");
    const [tool] = named("execute_tool postNote");
    await plugin.ready();
    const [unknown] = named("execute_tool nope");
    for (const child of [chat, tool, unknown]) expect(parentOf(child)).toBe(idOf(run));
    expect(tool!.attributes).toMatchObject({ [A.toolStatus]: "ok", [A.toolAttempts]: 2, [A.toolCallId]: "call_1" });
    expect(tool!.events.map((e) => [e.name, e.attributes?.[A.errorType], e.attributes?.[A.exceptionType]])).toEqual([
      ["retry", "LOCKED", "ToolResult"],
    ]);
    expect(unknown!.attributes).toMatchObject({ [A.errorType]: "UNKNOWN_TOOL", [A.toolAttempts]: 0 });
  });

  it("a run that throws ends its span with the error, its run id known from the start; a stopped run's span is ERROR with its reason", async () => {
    const { tracer, named } = otel();
    const plugin = openTelemetry({ tracer });
    await expect(
      plugin.wrapRun({ agent: "crashy", resumed: true }, async () => {
        plugin.observeRun({ agent: "crashy", runId: "run_crash" });
        throw Object.assign(new Error("model down"), { status: 503 });
      }),
    ).rejects.toThrow("model down");
    const [crashed] = named("invoke_agent crashy");
    expect(crashed!.attributes).toMatchObject({ [A.runId]: "run_crash", [A.errorType]: "503", [A.runResumed]: true });
    expect(crashed!.status.code).toBe(2);

    await plugin.wrapRun({ agent: "stuck", resumed: false }, async () =>
      result("escalated", { reason: "After one correction turn, no honest answer." }),
    );
    const [stopped] = named("invoke_agent stuck");
    expect(stopped!.attributes[A.errorType]).toBe("escalated");
    expect(stopped!.status).toMatchObject({ code: 2, message: "After one correction turn, no honest answer." });
  });

  it("replayed events make no span: the work they stand for was traced when it ran", async () => {
    const { tracer, spans } = otel();
    const plugin = openTelemetry({ tracer });
    const replayed: AgentEvent[] = [
      { type: "run-start", runId: "run_r", agent: "resumed", replayed: true },
      { type: "tool-call", turn: 1, callId: "c1", tool: "note", arguments: {}, replayed: true },
      {
        type: "tool-result",
        turn: 1,
        callId: "c1",
        tool: "note",
        outcome: {
          status: "ok",
          retriable: false,
          metadata: { tool: "note", callId: "c1", attempts: 1, latencyMs: 1 },
        },
        replayed: true,
      },
      { type: "turn-end", turn: 1, replayed: true },
    ];
    await plugin.wrapRun({ agent: "resumed", resumed: true }, async () => {
      const subscriber = plugin.observeRun({ agent: "resumed", runId: "run_r" });
      for (const event of replayed) subscriber?.(event);
      return result("completed", { runId: "run_r" });
    });
    expect(spans().map((s) => s.name)).toEqual(["invoke_agent resumed"]);
    expect(plugin.observeRun({ agent: "outside", runId: "x" })).toBeUndefined();
  });

  it("scrubs attributes and messages with the pipeline's redaction", async () => {
    const { tracer, named } = otel();
    const plugin = openTelemetry({ tracer });
    const redaction = {
      name: "redaction",
      redact: (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll("secret", "[X]")),
    };
    const pipeline = { plugins: [redaction, plugin] };
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [NoteTools],
      observers: [plugin.createObserver(pipeline)],
      middleware: [plugin.createMiddleware(pipeline)],
    });
    await invoker.invoke({ name: "secret-tool", arguments: {} });
    await plugin.ready();
    expect(named("execute_tool [X]-tool")[0]!.attributes[A.toolName]).toBe("[X]-tool");
  });

  it("a run-error event ends the run's span with the error; composed subscribers each hear it, one that throws changes nothing", async () => {
    const { tracer, named } = otel();
    const plugin = openTelemetry({ tracer });
    await plugin.ready();
    const heard: string[] = [];
    const telemetry = composeTelemetry([
      {
        onRunStart: () => {
          throw new Error("broken subscriber");
        },
      },
      plugin.telemetry({ plugins: [plugin] }),
      { onRunError: (e) => heard.push(e.runId) },
    ])!;
    telemetry.onRunStart?.({ runId: "run_x", agent: "crashy", resumed: false });
    const client = telemetryChatClient(
      { complete: () => Promise.reject(Object.assign(new Error("down"), { status: 503 })) },
      telemetry,
      "run_x",
    );
    await expect(client.complete({ messages: [], tools: [] })).rejects.toThrow("down");
    telemetry.onRunError?.({ runId: "run_x", agent: "crashy", error: new Error("down") });
    const [crashed] = named("invoke_agent crashy");
    expect(crashed!.status.code).toBe(2);
    expect(crashed!.attributes).toMatchObject({ [A.runId]: "run_x" });
    const [chat] = named("chat");
    expect(parentOf(chat)).toBe(idOf(crashed));
    expect(chat!.attributes[A.errorType]).toBe("503");
    expect(heard).toEqual(["run_x"]);
  });

  it("refuses a tracer that is not one, naming the option", () => {
    expect(() => openTelemetry({ tracer: {} as never })).toThrow(InvalidOptionError);
    expect(() => openTelemetry(undefined as never)).toThrow(/option 'tracer' must be an OpenTelemetry tracer/);
    expect(openTelemetry({ tracer: "global" }).describe()).toBe("opentelemetry(global tracer)");
    expect(() => openTelemetry({ tracer: "global", instrumentationScope: "" })).toThrow(
      /option 'instrumentationScope' must be a package's name/,
    );
  });

  it("'global' names its tracer by instrumentationScope (default @needlework/otel)", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    try {
      for (const plugin of [
        openTelemetry({ tracer: "global" }),
        openTelemetry({ tracer: "global", instrumentationScope: "@acme/agents" }),
      ]) {
        await plugin.ready();
        const telemetry = plugin.telemetry({ plugins: [] });
        telemetry.onRunStart?.({ runId: "run_s", agent: "a", resumed: false });
        telemetry.onRunError?.({ runId: "run_s", agent: "a", error: new Error("stop") });
      }
      expect(exporter.getFinishedSpans().map((s) => s.instrumentationScope.name)).toEqual([
        "@needlework/otel",
        "@acme/agents",
      ]);
    } finally {
      trace.disable();
    }
  });
});
