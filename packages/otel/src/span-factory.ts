import { errorTypeName, mapThrownError } from "@needlework/core";
import { scrubSecrets } from "@needlework/core/kit";
import { loadOtelApi } from "./otel-api.js";
import {
  type DiagnosticsSpan,
  type DiagnosticsTracer,
  type OtelApi,
  SPAN_STATUS,
  type TraceAttributes,
} from "./otel-types.js";
import { TRACE_ATTRIBUTES as A, TRACE_EVENTS } from "./trace-attributes.js";

/** The instrumentation scope of spans made from the global tracer provider, unless one is named. */
const TRACER_NAME = "@needlework/otel";

/** A span just started, and the context that makes it the parent of spans started within. @internal */
export interface Started {
  readonly span: DiagnosticsSpan;
  /** The OTel context holding the span (undefined without `@opentelemetry/api`). */
  readonly context: unknown;
}

/**
 * What every span needs: the tracer (found once `@opentelemetry/api` was looked for), explicit
 * parenting (a span's parent is given, or the OpenTelemetry context active when it starts),
 * redaction of every attribute and message, and a guard so a tracer that throws never changes a
 * call. `Tracing` makes the GenAI spans on top of it.
 * @internal
 */
export class SpanFactory {
  redact: (value: unknown) => unknown = (value) => value;
  protected api: OtelApi | undefined;
  protected tracer: DiagnosticsTracer | undefined;
  protected pending: Promise<void> | undefined;

  /** `instrumentationScope`: the instrumentation scope of the global provider's tracer (`tracer: "global"`). */
  constructor(option: DiagnosticsTracer | "global", instrumentationScope?: string) {
    this.pending = loadOtelApi().then((api) => {
      this.api = api;
      try {
        this.tracer = option === "global" ? api?.trace.getTracer(instrumentationScope ?? TRACER_NAME) : option;
      } catch {
        this.tracer = undefined;
      }
      this.pending = undefined;
    });
  }

  /** Resolves once `@opentelemetry/api` was looked for and the tracer is known. */
  ready(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }

  /** A tracer is in use (after `ready()`). */
  get active(): boolean {
    return this.tracer !== undefined;
  }

  protected endThrown(
    span: DiagnosticsSpan,
    error: unknown,
    cancelled: boolean,
    extra: TraceAttributes,
    errorType = (e: unknown) => mapThrownError(e).code,
  ): void {
    this.guard(() => {
      const code = cancelled ? "CANCELLED" : errorType(error);
      const message = this.exceptionEvent(span, error);
      span.setAttributes(
        this.clean({
          ...extra,
          ...(extra[A.toolAttempts] === undefined ? {} : { [A.toolStatus]: cancelled ? "cancelled" : "error" }),
          [A.errorType]: code,
        }),
      );
      span.setStatus({ code: SPAN_STATUS.ERROR, message: this.text(message || code) });
      span.end();
    });
  }

  /** Adds OpenTelemetry's `exception` event (type, redacted message); returns the message. */
  protected exceptionEvent(span: DiagnosticsSpan, error: unknown): string {
    let message = "";
    try {
      message = error instanceof Error ? error.message : String(error);
    } catch {
      // An unprintable thrown value: its type is enough.
    }
    this.guard(() =>
      span.addEvent(
        TRACE_EVENTS.exception,
        this.clean({ [A.exceptionType]: errorTypeName(error), [A.exceptionMessage]: this.text(message) }),
      ),
    );
    return message;
  }

  /** Starts a span under `parent` (a started span), or under the active OpenTelemetry context. */
  protected start(name: string, kind: number, attributes: TraceAttributes, parent?: Started): Started | undefined {
    const tracer = this.tracer;
    if (!tracer) return undefined;
    try {
      const api = this.api;
      const context = parent?.context ?? api?.context.active();
      const span = tracer.startSpan(name, { kind, attributes }, context);
      return { span, context: api ? api.trace.setSpan(context, span) : undefined };
    } catch {
      return undefined;
    }
  }

  /** Runs `fn` with the span as the active OpenTelemetry context (the parent of spans started inside). */
  protected within<T>(started: Started | undefined, fn: () => T): T {
    const context = started?.context;
    const api = this.api;
    if (context === undefined || !api) return fn();
    return api.context.with(context, fn);
  }

  protected clean(attributes: TraceAttributes): TraceAttributes {
    return this.redact(attributes) as TraceAttributes;
  }

  /**
   * A message for a span status or an exception event: through the pipeline's redaction, and always
   * through the default secret detectors (as log lines are), with or without `usingRedaction()`.
   */
  protected text(message: string): string {
    const redacted = this.redact(message);
    return typeof redacted === "string" ? scrubSecrets(redacted) : "";
  }

  protected guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // A broken tracer or exporter must never change what the caller gets.
    }
  }
}
