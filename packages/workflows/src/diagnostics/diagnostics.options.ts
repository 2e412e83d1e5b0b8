import { z } from "zod";
import type { DiagnosticsTracer } from "@needlework/otel";
import { functionOption, integerAtLeast } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "../options/parse-options.js";
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

const LOGGER =
  "must have info, warn and error methods (and optionally debug) taking (obj, msg): a pino logger or console";
const TRACER = 'must be an OpenTelemetry tracer (trace.getTracer("my-app")) or "global"';

function isLogger(value: unknown): value is DiagnosticsLogger {
  if (typeof value !== "object" || value === null) return false;
  const logger = value as Record<string, unknown>;
  const methods = ["info", "warn", "error"] as const;
  return (
    methods.every((m) => typeof logger[m] === "function") &&
    (logger["debug"] === undefined || typeof logger["debug"] === "function")
  );
}

const diagnosticsOptionsSchema = z.strictObject(
  {
    sink: functionOption<(record: DiagnosticRecord) => void | Promise<void>>().optional(),
    maxRecords: integerAtLeast(0).optional(),
    logger: z.custom<DiagnosticsLogger>(isLogger, LOGGER).optional(),
    tracer: z
      .union(
        [
          z.literal("global"),
          z.custom<DiagnosticsTracer>(
            (v) => typeof (v as { startSpan?: unknown } | null)?.startSpan === "function",
            TRACER,
          ),
        ],
        TRACER,
      )
      .optional(),
    latencySamples: integerAtLeast(1).optional(),
    clock: functionOption<() => number>().optional(),
    random: functionOption<() => number>().optional(),
  },
  "must be an object ({ sink?, maxRecords?, logger?, tracer?, ... })",
);

true satisfies SchemaMatches<typeof diagnosticsOptionsSchema, DiagnosticsOptions>;

/** Checks options and fills in defaults; a bad option fails when the builder method is called. @internal */
export function resolveDiagnosticsOptions(options: DiagnosticsOptions = {}): ResolvedDiagnosticsOptions {
  const o = parseOptions("usingDiagnostics", diagnosticsOptionsSchema, options);
  return {
    sink: o.sink,
    maxRecords: o.maxRecords ?? DIAGNOSTICS_DEFAULTS.maxRecords,
    logger: o.logger,
    tracer: o.tracer,
    latencySamples: o.latencySamples ?? DIAGNOSTICS_DEFAULTS.latencySamples,
    clock: o.clock ?? Date.now,
    random: o.random ?? Math.random,
  };
}
