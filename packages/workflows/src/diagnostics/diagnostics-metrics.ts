import type { DiagnosticRecord } from "./diagnostic-record.js";
import { RingBuffer } from "./ring-buffer.js";
import { type ToolMetrics, ToolCounters, UNKNOWN_TOOL_BUCKET } from "./tool-metrics.js";

/**
 * What the diagnostics plugin collected: the newest records and per-tool counters. Reach it as
 * `factory.metrics` (after `usingDiagnostics()`) or `diagnosticsPlugin(...).metrics`.
 *
 * @example
 * ```ts
 * const metrics = factory.metrics!;
 * for (const t of metrics.tools()) console.log(t.tool, t.calls, t.failures, t.latencyMs.p90);
 * const lastFailures = metrics.records().filter((r) => r.status !== "ok").slice(-10);
 * ```
 */
export interface DiagnosticsMetrics {
  /** The newest records, oldest first (at most `maxRecords`). A copy. */
  records(): DiagnosticRecord[];
  /** Counters per tool, by tool name; calls of unknown tools under `"(unknown tool)"`. */
  tools(): ToolMetrics[];
  /** Counters of one tool, or `undefined` before its first call. */
  tool(name: string): ToolMetrics | undefined;
  /** Clears records and counters. */
  reset(): void;
  /** Records made since the start (or `reset()`), including those the buffer dropped. */
  readonly recorded: number;
  /** The buffer's capacity: `maxRecords`. */
  readonly capacity: number;
}

/** Holds records and counters; bounded whatever the number of calls. @internal */
export class DiagnosticsCollector implements DiagnosticsMetrics {
  private readonly buffer: RingBuffer<DiagnosticRecord>;
  private readonly counters = new Map<string, ToolCounters>();
  /** Tools the factory offers; other names (the model's inventions) share one bucket. */
  private readonly known = new Set<string>();
  private total = 0;

  constructor(
    maxRecords: number,
    private readonly latencySamples: number,
    private readonly random: () => number,
  ) {
    this.buffer = new RingBuffer(maxRecords);
  }

  get recorded(): number {
    return this.total;
  }

  get capacity(): number {
    return this.buffer.capacity;
  }

  /** Records currently held (never more than `capacity`). */
  get size(): number {
    return this.buffer.size;
  }

  /** Latency samples held, summed over tools (each at most `latencySamples`). */
  get latencySamplesHeld(): number {
    let n = 0;
    for (const c of this.counters.values()) n += c.latencySamples;
    return n;
  }

  addKnownTools(names: Iterable<string>): void {
    for (const name of names) this.known.add(name);
  }

  add(record: DiagnosticRecord): void {
    this.total++;
    this.buffer.push(record);
    const bucket = this.known.has(record.tool) ? record.tool : UNKNOWN_TOOL_BUCKET;
    let counters = this.counters.get(bucket);
    if (!counters) {
      counters = new ToolCounters(bucket, this.latencySamples, this.random);
      this.counters.set(bucket, counters);
    }
    counters.add(record);
  }

  records(): DiagnosticRecord[] {
    return this.buffer.toArray();
  }

  tools(): ToolMetrics[] {
    return [...this.counters.values()]
      .map((c) => c.snapshot())
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }

  tool(name: string): ToolMetrics | undefined {
    return this.counters.get(name)?.snapshot();
  }

  reset(): void {
    this.buffer.clear();
    this.counters.clear();
    this.total = 0;
  }
}
