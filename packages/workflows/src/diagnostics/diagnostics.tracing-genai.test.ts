import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { diagnosticsHarness } from "../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../agent/index.js";
import type { AgentFrameworkBuilder } from "../builder/agent-framework.builder.js";
import { type DiagnosticsTracer, TRACE_ATTRIBUTES as A } from "@needlework/otel";

function otel() {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
    "needlework-test",
  );
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
  return { tracer, spans, named };
}

/** A model client as a provider package would write one: it names its provider, server and request settings. */
function providerClient(
  answers: (ChatResponse | Error)[],
): ChatClient & { model: string; temperature: number; maxTokens: number } {
  return {
    provider: "acme",
    model: "acme-large",
    temperature: 0.2,
    maxTokens: 512,
    endpoint: { address: "llm.internal", port: 8443 },
    async complete(_request: ChatRequest) {
      const next = answers.shift();
      if (next === undefined) throw new Error("script exhausted");
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

/** What the `openai` SDK throws for an HTTP 500 (an APIError with `status`, `type` in its body). */
class ServerError extends Error {
  readonly status = 500;
  readonly type = "server_error";
}

describe("GenAI semantic conventions on chat and invoke_agent spans", () => {
  it("names the provider, server, request settings and the response's model and id", async () => {
    const { tracer, named } = otel();
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer }));
    const chatClient = providerClient([
      {
        message: { content: "Done." },
        finishReason: "stop",
        model: "acme-large-2026-10",
        id: "resp_42",
        usage: { inputTokens: 9, outputTokens: 2, totalTokens: 11 },
      },
    ]);
    await factory.createAgent({ name: "crm-sync", instructions: "Sync.", chatClient }).run("go");

    const [chat] = named("chat acme-large");
    expect(chat!.attributes).toMatchObject({
      [A.operation]: "chat",
      [A.providerName]: "acme",
      [A.requestModel]: "acme-large",
      [A.requestTemperature]: 0.2,
      [A.requestMaxTokens]: 512,
      [A.serverAddress]: "llm.internal",
      [A.serverPort]: 8443,
      [A.responseModel]: "acme-large-2026-10",
      [A.responseId]: "resp_42",
      [A.finishReasons]: ["stop"],
    });
    expect(named("invoke_agent crm-sync")[0]!.attributes).toMatchObject({
      [A.operation]: "invoke_agent",
      [A.providerName]: "acme",
      [A.requestModel]: "acme-large",
    });
  });

  it("falls back to provider 'unknown' for a client that does not name one, and sends no server or request attributes it does not know", async () => {
    const { tracer, named } = otel();
    const { factory } = diagnosticsHarness((b) => b.usingDiagnostics({ tracer }));
    await factory
      .createAgent({ name: "a", instructions: "", chatClient: new ScriptedChatClient([{ text: "Hi." }]) })
      .run("go");
    const [chat] = named("chat");
    expect(chat!.attributes[A.providerName]).toBe("unknown");
    expect(named("invoke_agent a")[0]!.attributes[A.providerName]).toBe("unknown");
    for (const key of [A.serverAddress, A.serverPort, A.requestTemperature, A.requestMaxTokens, A.responseId])
      expect(chat!.attributes[key]).toBeUndefined();
  });

  it("an HTTP 500 from the model server sets error.type '500' on the chat and invoke_agent spans", async () => {
    const { tracer, named } = otel();
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer }));
    const agent = factory.createAgent({
      name: "a",
      instructions: "",
      chatClient: providerClient([new ServerError("500 The server had an error")]),
    });
    await expect(agent.run("go")).rejects.toBeInstanceOf(ServerError);
    const [chat] = named("chat acme-large");
    expect(chat!.attributes[A.errorType]).toBe("500");
    expect(chat!.status.code).toBe(2);
    expect(chat!.events.map((e) => e.attributes?.[A.exceptionType])).toEqual(["ServerError"]);
    expect(named("invoke_agent a")[0]!.attributes[A.errorType]).toBe("500");
  });

  type Order = (b: AgentFrameworkBuilder, tracer: DiagnosticsTracer) => AgentFrameworkBuilder;
  const orders: [string, Order][] = [
    [
      "result middleware, then diagnostics (recommended)",
      (b, tracer) => b.usingToolResultMiddleware().usingRedaction().usingDiagnostics({ tracer }),
    ],
    [
      "diagnostics, then result middleware",
      (b, tracer) => b.usingRedaction().usingDiagnostics({ tracer }).usingToolResultMiddleware(),
    ],
  ];
  it.each(orders)(
    "a tool that throws leaves one exception event (type, redacted message) on its span: %s",
    async (_, order) => {
      const { tracer, named } = otel();
      const { world, factory } = diagnosticsHarness((b) => order(b, tracer));
      world.on("updateContact", () => {
        throw new TypeError("lookup failed for jane.doe@example.com");
      });
      const outcome = await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } });
      expect(outcome).toMatchObject({ status: "error" });
      const [span] = named("execute_tool updateContact");
      expect(span!.status.code).toBe(2);
      expect(span!.events.filter((e) => e.name === "exception")).toEqual([
        expect.objectContaining({
          attributes: { [A.exceptionType]: "TypeError", [A.exceptionMessage]: "lookup failed for [REDACTED:email]" },
        }),
      ]);
    },
  );
});
