import { type LatencySummary, LatencyReservoir } from "./latency-reservoir.js";
import type { DiagnosticRecord } from "./diagnostic-record.js";

/**
 * The bucket that counts calls of tools the factory does not offer (`UNKNOWN_TOOL`): one bucket,
 * because those names come from the model and would otherwise grow the table without bound. The
 * records keep the name the model used.
 *
 * @example
 * ```ts
 * factory.metrics!.tool(UNKNOWN_TOOL_BUCKET)?.calls; // how often the model invented a tool
 * ```
 */
export const UNKNOWN_TOOL_BUCKET = "(unknown tool)";

/**
 * Distinct error codes counted per tool; further codes are counted under `OTHER`, so a tool that
 * puts ids into its codes cannot grow memory.
 * @internal
 */
export const MAX_CODES_PER_TOOL = 64;

/**
 * Counters of one tool since the factory was built (or `metrics.reset()`).
 *
 * @example
 * ```ts
 * const m = factory.metrics!.tool("updateContact")!;
 * console.log(`${m.failures}/${m.calls} failed`, m.failuresByCode, `p99 ${m.latencyMs.p99} ms`);
 * ```
 */
export interface ToolMetrics {
  readonly tool: string;
  readonly calls: number;
  readonly ok: number;
  /** Calls that ended `error`, `timeout`, `partial` or `skipped`: envelopes the model read count too. */
  readonly failures: number;
  /** Calls cancelled by their caller (or a fail-fast sibling): not counted as failures. */
  readonly cancelled: number;
  /** Failures by error code (the status in capitals when a failure has no code). */
  readonly failuresByCode: Readonly<Record<string, number>>;
  /** Retries made: `attempts - 1` summed over calls. */
  readonly retries: number;
  /** Calls that ended `timeout` (or with `TIMEOUT`, or `OUTCOME_UNKNOWN`: a non-idempotent tool timed out). */
  readonly timeouts: number;
  /** Calls refused by an open circuit (`CIRCUIT_OPEN`). */
  readonly circuitOpens: number;
  /** Over calls whose tool ran (attempts > 0). */
  readonly latencyMs: LatencySummary;
}

/** The mutable counters behind a {@link ToolMetrics} snapshot. @internal */
export class ToolCounters {
  calls = 0;
  ok = 0;
  failures = 0;
  cancelled = 0;
  retries = 0;
  timeouts = 0;
  circuitOpens = 0;
  private readonly codes = new Map<string, number>();
  private readonly latency: LatencyReservoir;

  constructor(
    readonly tool: string,
    reservoirSize: number,
    random: () => number,
  ) {
    this.latency = new LatencyReservoir(reservoirSize, random);
  }

  /** Samples held by the latency reservoir (bounded by its size). */
  get latencySamples(): number {
    return this.latency.size;
  }

  add(record: Pick<DiagnosticRecord, "status" | "errorCode" | "attempts" | "latencyMs">): void {
    this.calls++;
    if (record.attempts > 1) this.retries += record.attempts - 1;
    if (record.attempts > 0) this.latency.add(record.latencyMs);
    if (record.status === "ok") {
      this.ok++;
      return;
    }
    if (record.status === "cancelled") {
      this.cancelled++;
      return;
    }
    this.failures++;
    const code = record.errorCode ?? record.status.toUpperCase();
    if (record.status === "timeout" || code === "TIMEOUT" || code === "OUTCOME_UNKNOWN") this.timeouts++;
    if (code === "CIRCUIT_OPEN") this.circuitOpens++;
    const key = this.codes.has(code) || this.codes.size < MAX_CODES_PER_TOOL ? code : "OTHER";
    this.codes.set(key, (this.codes.get(key) ?? 0) + 1);
  }

  snapshot(): ToolMetrics {
    return {
      tool: this.tool,
      calls: this.calls,
      ok: this.ok,
      failures: this.failures,
      cancelled: this.cancelled,
      failuresByCode: Object.fromEntries(this.codes),
      retries: this.retries,
      timeouts: this.timeouts,
      circuitOpens: this.circuitOpens,
      latencyMs: this.latency.summary(),
    };
  }
}
