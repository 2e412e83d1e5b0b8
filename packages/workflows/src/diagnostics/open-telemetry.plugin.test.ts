// `openTelemetry({ tracer })` of `@needlework/otel` in a workflows builder: the same spans as
// `usingDiagnostics({ tracer })`, which makes its spans through it, without the records and logs.
import { ToolResult } from "@needlework/core";
import { openTelemetry } from "@needlework/otel";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { HttpError } from "../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../agent/index.js";
import type { AgentFrameworkBuilder } from "../builder/agent-framework.builder.js";

/** One run with a retried call, a failing call and an unknown tool; its spans without ids or times. */
async function tracedRun(
  trace: (b: AgentFrameworkBuilder, tracer: ReturnType<BasicTracerProvider["getTracer"]>) => AgentFrameworkBuilder,
) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  const { world, factory } = diagnosticsHarness((b) =>
    trace(b.usingResilience(RETRY_AT_ONCE).usingToolResultMiddleware().usingRedaction(), tracer),
  );
  let locked = 1;
  world.on("postNote", () =>
    locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : { ok: 1 },
  );
  world.on("updateContact", () => {
    throw new HttpError(403, "denied for jane.doe@example.com");
  });
  const chatClient = new ScriptedChatClient([
    {
      toolCalls: [
        { id: "call_note", name: "postNote", arguments: { note: "n" } },
        { id: "call_update", name: "updateContact", arguments: { contactId: "c1" } },
        { id: "call_nope", name: "nope", arguments: {} },
      ],
    },
    { text: "Posted; c1 failed." },
  ]);
  const result = await factory.createAgent({ name: "crm", instructions: "", chatClient }).run("go", { runId: "run_o" });
  const spans = exporter.getFinishedSpans();
  const nameOf = new Map(spans.map((s) => [s.spanContext().spanId, s.name]));
  return {
    status: result.status,
    spans: spans
      .map((s) => ({
        name: s.name,
        parent: nameOf.get(s.parentSpanContext?.spanId ?? ""),
        status: s.status,
        attributes: s.attributes,
        events: s.events.map((e) => [e.name, e.attributes]),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

describe("openTelemetry() in a workflows builder", () => {
  it("usingPlugin(openTelemetry({ tracer })) makes the spans usingDiagnostics({ tracer }) makes", async () => {
    const diagnostics = await tracedRun((b, tracer) => b.usingDiagnostics({ tracer }));
    const plugin = await tracedRun((b, tracer) => b.usingPlugin(openTelemetry({ tracer })));
    expect(plugin).toEqual(diagnostics);
    expect(plugin.spans.map((s) => [s.name, s.parent])).toEqual([
      ["chat", "invoke_agent crm"],
      ["chat", "invoke_agent crm"],
      ["execute_tool nope", "invoke_agent crm"],
      ["execute_tool postNote", "invoke_agent crm"],
      ["execute_tool updateContact", "invoke_agent crm"],
      ["invoke_agent crm", undefined],
    ]);
    const update = plugin.spans.find((s) => s.name === "execute_tool updateContact");
    expect(JSON.stringify(update)).toContain("[REDACTED:email]");
    expect(JSON.stringify(update)).not.toContain("jane.doe");
    expect(plugin.spans.find((s) => s.name === "execute_tool postNote")?.events).toHaveLength(1);
  });

  it("beside usingDiagnostics({ tracer }) the build warns NW011 (every span twice); one of them, or diagnostics without a tracer, does not", () => {
    const tracer = new BasicTracerProvider().getTracer("t");
    const ids = (configure: (b: AgentFrameworkBuilder) => AgentFrameworkBuilder) =>
      diagnosticsHarness((b) => configure(b.usingResilience().usingToolResultMiddleware())).factory.diagnostics.map(
        (d) => d.id,
      );
    const both = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ tracer }).usingPlugin(openTelemetry({ tracer })),
    ).factory.diagnostics.find((d) => d.id === "NW011");
    expect(both).toMatchObject({ severity: "warning", plugin: "opentelemetry" });
    expect(both?.message).toContain("'diagnostics' and 'opentelemetry'");
    expect(ids((b) => b.usingDiagnostics({ tracer }))).not.toContain("NW011");
    expect(ids((b) => b.usingPlugin(openTelemetry({ tracer })))).not.toContain("NW011");
    expect(ids((b) => b.usingDiagnostics().usingPlugin(openTelemetry({ tracer })))).not.toContain("NW011");
  });
});
