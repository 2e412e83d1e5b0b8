// Modules the docs' ```ts blocks import that this repository does not install. No names: a block uses
// only what it or an earlier block of its page declares, as a reader sees it (documented in docs/README.md).

/** The AI SDK's OpenAI provider, which this repository does not install (its models are LanguageModelV4). */
declare module "@ai-sdk/openai" {
  export function openai(modelId: string): import("ai/test").MockLanguageModelV4;
}

/** OpenTelemetry: an optional peer of @needlework/otel that examples/ does not install. */
declare module "@opentelemetry/api" {
  export const trace: {
    getTracer(name: string, version?: string): import("@needlework/otel").DiagnosticsTracer;
    setGlobalTracerProvider(provider: {
      getTracer(name: string, version?: string): import("@needlework/otel").DiagnosticsTracer;
    }): boolean;
  };
}
declare module "@opentelemetry/sdk-trace-base" {
  export interface ReadableSpan {
    readonly name: string;
    readonly attributes: Record<string, unknown>;
    readonly events: { readonly name: string; readonly attributes?: Record<string, unknown> }[];
    readonly status: { readonly code: number; readonly message?: string };
  }
  export class InMemorySpanExporter {
    getFinishedSpans(): ReadableSpan[];
    reset(): void;
  }
  export class SimpleSpanProcessor {
    constructor(exporter: InMemorySpanExporter);
  }
  export class BasicTracerProvider {
    constructor(config?: { spanProcessors?: SimpleSpanProcessor[] });
    getTracer(name: string, version?: string): import("@needlework/otel").DiagnosticsTracer;
  }
}
