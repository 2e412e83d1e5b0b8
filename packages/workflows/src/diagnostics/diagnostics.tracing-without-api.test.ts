// Tracing when `@opentelemetry/api` is not installed: its import fails here (mocked), as it does in an
// app without the package. The tracer provider below comes from `@opentelemetry/sdk-trace-base`, loaded
// by Node outside the mock, so a tracer given as an option still works.
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { diagnosticsHarness } from "../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../agent/index.js";
import type { DiagnosticsTracer } from "@needlework/otel";
import { diagnosticsPlugin } from "./diagnostics.plugin.js";

vi.mock("@opentelemetry/api", () => {
  throw new Error("Cannot find package '@opentelemetry/api'");
});

type OtelApiModule = typeof import("@opentelemetry/api");

function otel() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer: DiagnosticsTracer = provider.getTracer("needlework-test");
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return { provider, tracer, spans };
}

afterEach(async () => {
  (await vi.importActual<OtelApiModule>("@opentelemetry/api")).trace.disable();
});

describe("OpenTelemetry tracing without @opentelemetry/api", () => {
  it("'global' is a no-op when @opentelemetry/api is missing", async () => {
    const { provider, tracer, spans } = otel();
    // The global provider is set (through the real package): had the lookup found it, 'global' would trace.
    (await vi.importActual<OtelApiModule>("@opentelemetry/api")).trace.setGlobalTracerProvider(provider);
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ tracer }));
    await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } });

    const plugin = diagnosticsPlugin({ tracer: "global" });
    const { factory: untraced } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    await plugin.ready();
    expect(await untraced.tools.invoke({ name: "postNote", arguments: { note: "y" } })).toMatchObject({ status: "ok" });
    expect(spans()).toHaveLength(1);
    expect(plugin.metrics.records()).toHaveLength(1);
  });

  it("with a tracer but without the API package, still exports spans (unparented)", async () => {
    const { tracer, spans } = otel();
    const plugin = diagnosticsPlugin({ tracer });
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    const agent = factory.createAgent({
      name: "a",
      instructions: "",
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "postNote", arguments: { note: "n" } }] },
        { text: "Posted." },
      ]),
    });
    await agent.run("go");
    expect(
      spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat", "chat", "execute_tool postNote", "invoke_agent a"]);
    expect(spans().every((s) => s.parentSpanContext === undefined)).toBe(true);
  });
});
