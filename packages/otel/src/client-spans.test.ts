import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { memoryTracer } from "../test/memory-tracer.js";
import { clientSpans } from "./client-spans.js";
import type { DiagnosticsTracer } from "./otel-types.js";

afterEach(() => {
  trace.disable();
  context.disable();
});

describe("clientSpans(): client spans for a tool source of your own", () => {
  it("makes a client span under the active span; a failure sets error.type, its attributes and ERROR", async () => {
    const { tracer, spans } = memoryTracer();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const client = clientSpans({ tracer, instrumentationScope: "@acme/grpc-tools" });
    await client.ready();
    const tool = tracer.startSpan("execute_tool lookup");
    context.with(trace.setSpan(context.active(), tool), () => {
      client.start("grpc Lookup", { "rpc.system": "grpc" }).end();
      const failed = client.start("grpc Lookup", { "rpc.system": "grpc" });
      failed.end({ errorType: "UNAVAILABLE", attributes: { "rpc.response.status_code": "14" } });
      failed.end({ errorType: "SECOND_END" });
    });
    tool.end();
    const [ok, failed] = spans().filter((s) => s.name === "grpc Lookup");
    expect(ok!.kind).toBe(2); // CLIENT
    expect(ok!.status.code).toBe(0);
    expect(ok!.attributes).toEqual({ "rpc.system": "grpc" });
    expect(failed!.attributes).toEqual({
      "rpc.system": "grpc",
      "error.type": "UNAVAILABLE",
      "rpc.response.status_code": "14",
    });
    expect(failed!.status).toEqual({ code: 2, message: "UNAVAILABLE" });
    for (const span of [ok!, failed!]) expect(span.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
  });

  it("without a tracer uses the global provider's, named by instrumentationScope; false makes none", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const global = clientSpans({ instrumentationScope: "@acme/grpc-tools" });
    const off = clientSpans({ tracer: false, instrumentationScope: "@acme/grpc-tools" });
    await Promise.all([global.ready(), off.ready()]);
    global.start("grpc Lookup", {}).end();
    off.start("grpc Lookup", {}).end();
    expect(exporter.getFinishedSpans().map((s) => s.instrumentationScope.name)).toEqual(["@acme/grpc-tools"]);
  });

  it("a tracer or span that throws never reaches the caller", async () => {
    const throwing: DiagnosticsTracer = {
      startSpan: () => {
        throw new Error("exporter down");
      },
    };
    const broken = clientSpans({ tracer: throwing, instrumentationScope: "@acme/grpc-tools" });
    await broken.ready();
    expect(() => broken.start("grpc Lookup", {}).end({ errorType: "TIMEOUT" })).not.toThrow();
    const badSpan: DiagnosticsTracer = {
      startSpan: () => ({
        setAttributes: () => {
          throw new Error("closed");
        },
        addEvent: () => undefined,
        setStatus: () => undefined,
        end: () => undefined,
      }),
    };
    const spans = clientSpans({ tracer: badSpan, instrumentationScope: "@acme/grpc-tools" });
    await spans.ready();
    expect(() => spans.start("grpc Lookup", {}).end({ errorType: "TIMEOUT" })).not.toThrow();
  });

  it("refuses a tracer that is none, and a missing instrumentation scope, naming the option", () => {
    expect(() => clientSpans({ tracer: {} as DiagnosticsTracer, instrumentationScope: "x" })).toThrow(
      /option 'tracer' must be an OpenTelemetry tracer/,
    );
    expect(() => clientSpans({ instrumentationScope: "" })).toThrow(/option 'instrumentationScope'/);
  });
});
