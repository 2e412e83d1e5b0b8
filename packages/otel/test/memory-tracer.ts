import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A real OpenTelemetry tracer whose finished spans stay in memory, for the span tests. */
export function memoryTracer(name = "needlework-test") {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(name);
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const named = (spanName: string): ReadableSpan[] => spans().filter((s) => s.name === spanName);
  return { tracer, spans, named };
}
