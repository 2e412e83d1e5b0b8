// Names the docs' ```ts blocks use without declaring them: things a reader already has from the
// page's earlier examples or from their own application. Each block is compiled as a module, so a
// block that declares one of these names uses its own. Keep this list short; it is documented in
// docs/README.md.

/** The factory built on the page (`usingAgentFramework(...)...buildAgentFactory()`). */
declare const factory: import("@needlework/workflows").AgentFactory;
/** Any tool invoker (`factory.tools`, or `createToolInvoker(...)` from core). */
declare const invoker: import("@needlework/core").ToolInvoker;
/** Any model client (`ScriptedChatClient`, `OpenAIChatClient`, your own). */
declare const chatClient: import("@needlework/workflows").ChatClient;
/** An agent created with `factory.createAgent(...)`. */
declare const agent: import("@needlework/workflows").Agent;
/** The caller's abort signal. */
declare const signal: AbortSignal;
/** The application's logger (pino, console, ...). */
declare const log: { info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };

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
