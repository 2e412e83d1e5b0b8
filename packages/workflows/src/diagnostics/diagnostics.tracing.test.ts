import { ToolResult } from "@needlework/core";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { HttpError } from "../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../agent/index.js";
import { type DiagnosticsTracer, TRACE_ATTRIBUTES as A } from "@needlework/otel";
import { type DiagnosticsPlugin, diagnosticsPlugin } from "./diagnostics.plugin.js";

function otel() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // An OpenTelemetry Tracer is a DiagnosticsTracer as it is (checked by the type check).
  const tracer: DiagnosticsTracer = provider.getTracer("needlework-test");
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const found = spans().filter((s) => s.name === name);
    if (found.length !== 1)
      throw new Error(
        `expected one span '${name}', got ${found.length}: ${spans()
          .map((s) => s.name)
          .join(", ")}`,
      );
    return found[0]!;
  };
  return { exporter, provider, tracer, spans, named };
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

afterEach(() => {
  trace.disable();
  context.disable();
});

describe("OpenTelemetry tracing (GenAI conventions)", () => {
  it("traces a run: invoke_agent over chat and execute_tool spans, failures marked ERROR with error.type, a retry event per retry", async () => {
    const { tracer, named, spans } = otel();
    const { world, factory } = diagnosticsHarness((b) =>
      b.usingResilience(RETRY_AT_ONCE).usingToolResultMiddleware().usingDiagnostics({ tracer }),
    );
    let locked = 2;
    world.on("postNote", () =>
      locked-- > 0 ? ToolResult.fail("Note store is locked", { code: "LOCKED", transient: true }) : { posted: true },
    );
    world.on("updateContact", () => {
      throw new HttpError(403, "denied");
    });
    const chatClient = Object.assign(
      new ScriptedChatClient([
        {
          toolCalls: [
            { id: "call_note", name: "postNote", arguments: { note: "synced" } },
            { id: "call_update", name: "updateContact", arguments: { contactId: "c1" } },
          ],
          usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
        },
        {
          text: "The note was posted; updating c1 failed (FORBIDDEN).",
          usage: { inputTokens: 150, outputTokens: 12, totalTokens: 162 },
        },
      ]),
      { model: "gpt-test" },
    );
    const agent = factory.createAgent({ name: "crm-sync", instructions: "Sync.", chatClient });
    const result = await agent.run("Sync c1", { runId: "run_t1" });
    expect(result.status).toBe("completed_with_failures");

    const run = named("invoke_agent crm-sync");
    expect(parentOf(run)).toBeUndefined();
    expect(run.attributes).toMatchObject({
      [A.operation]: "invoke_agent",
      [A.agentName]: "crm-sync",
      [A.runId]: "run_t1",
      [A.runStatus]: "completed_with_failures",
      [A.runIterations]: 2,
      [A.inputTokens]: 250,
      [A.outputTokens]: 32,
      [A.runToolsOk]: 1,
      [A.runToolsFailed]: 1,
      [A.runBlockingFailure]: true,
    });
    expect(run.status.code).toBe(0); // a run that ended with an honest answer is not an error

    const chats = spans().filter((s) => s.name === "chat gpt-test");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(parentOf(chat)).toBe(idOf(run));
      expect(chat.kind).toBe(2); // CLIENT
      expect(chat.attributes).toMatchObject({ [A.operation]: "chat", [A.requestModel]: "gpt-test" });
    }
    expect(chats[0]!.attributes).toMatchObject({ [A.inputTokens]: 100, [A.outputTokens]: 20, [A.chatToolCalls]: 2 });

    const note = named("execute_tool postNote");
    expect(parentOf(note)).toBe(idOf(run));
    expect(note.attributes).toMatchObject({
      [A.operation]: "execute_tool",
      [A.toolName]: "postNote",
      [A.toolCallId]: "call_note",
      [A.toolType]: "function",
      [A.toolDescription]: "Posts an activity note.",
      [A.toolStatus]: "ok",
      [A.toolAttempts]: 3,
    });
    expect(note.attributes[A.errorType]).toBeUndefined();
    expect(note.status.code).toBe(0);
    expect(note.events.map((e) => [e.name, e.attributes?.[A.retryAttempt], e.attributes?.[A.errorType]])).toEqual([
      ["retry", 1, "LOCKED"],
      ["retry", 2, "LOCKED"],
    ]);

    const update = named("execute_tool updateContact");
    expect(parentOf(update)).toBe(idOf(run));
    expect(update.attributes).toMatchObject({
      [A.toolCallId]: "call_update",
      [A.errorType]: "FORBIDDEN",
      [A.toolStatus]: "error",
    });
    expect(update.status.code).toBe(2); // ERROR
    // The result middleware (inside diagnostics here) turned the throw into an outcome; the span still records it.
    expect(update.events).toEqual([
      expect.objectContaining({
        name: "exception",
        attributes: { [A.exceptionType]: "HttpError", [A.exceptionMessage]: "denied" },
      }),
    ]);
  });

  it("marks an escalated run's span ERROR with error.type, and spans calls the pipeline never ran", async () => {
    const { tracer, named } = otel();
    const plugin = diagnosticsPlugin({ tracer });
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    world.on("updateContact", () => {
      throw new HttpError(403, "denied");
    });
    const chatClient = new ScriptedChatClient([
      {
        toolCalls: [
          { id: "call_1", name: "updateContact", arguments: { contactId: "c1" } },
          { id: "call_2", name: "upsertContact", arguments: {} },
          { id: "call_3", name: "postNote", arguments: {} },
        ],
      },
      { text: "Sync complete." },
      { text: "Sync complete, all done." },
    ]);
    const result = await factory.createAgent({ name: "liar", instructions: "", chatClient }).run("sync");
    expect(result.status).toBe("escalated");
    await plugin.ready();
    const run = named("invoke_agent liar");
    expect(run.status).toMatchObject({ code: 2, message: expect.stringContaining("After one correction turn") });
    expect(run.attributes[A.errorType]).toBe("escalated");
    expect(named("execute_tool upsertContact").attributes).toMatchObject({
      [A.errorType]: "UNKNOWN_TOOL",
      [A.toolAttempts]: 0,
      [A.toolCallId]: "call_2",
    });
    expect(named("execute_tool postNote").attributes).toMatchObject({ [A.errorType]: "INVALID_ARGUMENTS" });
    expect(parentOf(named("execute_tool upsertContact"))).toBe(idOf(run));
  });

  it("redacts exported attributes, messages and exception events", async () => {
    const { tracer, named } = otel();
    const { world, factory } = diagnosticsHarness((b) => b.usingRedaction().usingDiagnostics({ tracer }));
    world.on("updateContact", () => {
      throw new Error("lookup failed for jane.doe@example.com");
    });
    await expect(factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } })).rejects.toThrow(
      "jane.doe",
    );
    const span = named("execute_tool updateContact");
    expect(span.status).toMatchObject({ code: 2, message: "lookup failed for [REDACTED:email]" });
    expect(span.attributes[A.errorType]).toBe("UNHANDLED_ERROR");
    expect(span.events).toEqual([
      expect.objectContaining({
        name: "exception",
        attributes: { [A.exceptionType]: "Error", [A.exceptionMessage]: "lookup failed for [REDACTED:email]" },
      }),
    ]);

    await factory.tools.invoke({ name: "mail jane.doe@example.com", arguments: {} });
    await (factory.plugins.at(-1) as DiagnosticsPlugin).ready();
    expect(named("execute_tool mail [REDACTED:email]").attributes[A.toolName]).toBe("mail [REDACTED:email]");
  });

  it("with a context manager, tool spans nest under the caller's active span, and the tool's own spans under execute_tool", async () => {
    const { tracer, named, provider } = otel();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer }));
    // The tool's own instrumentation (an HTTP or DB client) starts spans from the active context.
    world.on("postNote", async () => {
      provider.getTracer("db").startSpan("db.insert notes").end();
      return { posted: true };
    });
    const request = provider.getTracer("app").startSpan("http POST /notes");
    await context.with(trace.setSpan(context.active(), request), () =>
      factory.tools.invoke({ name: "postNote", arguments: { note: "x" } }),
    );
    request.end();
    const tool = named("execute_tool postNote");
    expect(parentOf(tool)).toBe(idOf(named("http POST /notes")));
    expect(parentOf(named("db.insert notes"))).toBe(idOf(tool));
  });

  it("'global' uses the global tracer provider (without @opentelemetry/api: diagnostics.tracing-without-api.test.ts)", async () => {
    const { provider, spans } = otel();
    trace.setGlobalTracerProvider(provider);
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer: "global" }));
    await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } });
    expect(spans().map((s) => [s.name, s.instrumentationScope.name])).toEqual([
      ["execute_tool postNote", "@needlework/workflows"],
    ]);
  });

  it("a tracer that throws never changes a call", async () => {
    const broken: DiagnosticsTracer = {
      startSpan: () => {
        throw new Error("exporter exploded");
      },
    };
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer: broken }));
    expect(await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } })).toMatchObject({ status: "ok" });
    const agent = factory.createAgent({
      name: "a",
      instructions: "",
      chatClient: new ScriptedChatClient([{ text: "Hi." }]),
    });
    expect((await agent.run("go")).status).toBe("completed");
  });
});
