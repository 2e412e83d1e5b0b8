import type { DiagnosticsTracer } from "../observability/otel-types.js";
import type { DiagnosticRecord } from "./diagnostic-record.js";
import type { DiagnosticsLogger } from "./diagnostics-logger.js";

/**
 * Options of `usingDiagnostics(options)`. Defaults: {@link DIAGNOSTICS_DEFAULTS}.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * const options: DiagnosticsOptions = {
 *   maxRecords: 5_000,
 *   sink: (record) => metricsQueue.push(record),
 *   logger: pino(),
 *   tracer: trace.getTracer("support-bot"),
 * };
 * ```
 */
export interface DiagnosticsOptions {
  /** Called with every record as it is made (after redaction). A sink that throws or rejects is ignored. */
  readonly sink?: (record: DiagnosticRecord) => void | Promise<void>;
  /** Records kept in memory (a ring buffer: the oldest is dropped). Default 1000; 0 keeps none. */
  readonly maxRecords?: number;
  /** Where call failures and run endings are logged: a pino logger, `console`, ... Default: none. */
  readonly logger?: DiagnosticsLogger;
  /**
   * An OpenTelemetry tracer (`trace.getTracer("my-app")`), or `"global"` for the global tracer
   * provider's (a no-op when `@opentelemetry/api` is not installed). Default: no tracing.
   */
  readonly tracer?: DiagnosticsTracer | "global";
  /** Latency samples kept per tool for the percentiles (a uniform reservoir). Default 1024. */
  readonly latencySamples?: number;
  /** Epoch milliseconds, for `record.time`. Default `Date.now`. */
  readonly clock?: () => number;
  /** In [0, 1), for the latency reservoir. Default `Math.random`; fix it in tests. */
  readonly random?: () => number;
}

/**
 * The defaults of {@link DiagnosticsOptions}.
 *
 * @example
 * ```ts
 * DIAGNOSTICS_DEFAULTS.maxRecords; // 1000
 * ```
 */
export const DIAGNOSTICS_DEFAULTS = Object.freeze({
  maxRecords: 1000,
  latencySamples: 1024,
});

/** Options after defaults. @internal */
export interface ResolvedDiagnosticsOptions {
  readonly sink: ((record: DiagnosticRecord) => void | Promise<void>) | undefined;
  readonly maxRecords: number;
  readonly logger: DiagnosticsLogger | undefined;
  readonly tracer: DiagnosticsTracer | "global" | undefined;
  readonly latencySamples: number;
  readonly clock: () => number;
  readonly random: () => number;
}

const KNOWN = new Set(["sink", "maxRecords", "logger", "tracer", "latencySamples", "clock", "random"]);

function fail(message: string): never {
  throw new TypeError(`usingDiagnostics: ${message}`);
}

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    fail(`\`${name}\` must be an integer >= ${min}, not ${String(value)}.`);
  return value;
}

function optionalFunction<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== "function") fail(`\`${name}\` must be a function.`);
  return value;
}

/** Checks options and fills in defaults; a bad option fails when the builder method is called. @internal */
export function resolveDiagnosticsOptions(options: DiagnosticsOptions = {}): ResolvedDiagnosticsOptions {
  if (typeof options !== "object" || options === null)
    fail("pass an options object ({ sink?, maxRecords?, logger?, tracer? }).");
  for (const key of Object.keys(options))
    if (!KNOWN.has(key)) fail(`unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  const { logger, tracer } = options;
  if (logger !== undefined) {
    const methods = ["info", "warn", "error"] as const;
    if (
      typeof logger !== "object" ||
      logger === null ||
      !methods.every((m) => typeof logger[m] === "function") ||
      (logger.debug !== undefined && typeof logger.debug !== "function")
    ) {
      fail(
        "`logger` must have info, warn and error methods (and optionally debug) taking (obj, msg): a pino logger or console.",
      );
    }
  }
  if (
    tracer !== undefined &&
    tracer !== "global" &&
    typeof (tracer as { startSpan?: unknown } | null)?.startSpan !== "function"
  ) {
    fail('`tracer` must be an OpenTelemetry tracer (trace.getTracer("my-app")) or "global".');
  }
  return {
    sink: optionalFunction("sink", options.sink),
    maxRecords: integer("maxRecords", options.maxRecords, DIAGNOSTICS_DEFAULTS.maxRecords, 0),
    logger,
    tracer,
    latencySamples: integer("latencySamples", options.latencySamples, DIAGNOSTICS_DEFAULTS.latencySamples, 1),
    clock: optionalFunction("clock", options.clock) ?? Date.now,
    random: optionalFunction("random", options.random) ?? Math.random,
  };
}
