/**
 * Latency percentiles of one tool, in milliseconds, by the nearest-rank method over the
 * reservoir's samples; `max` is exact over every call.
 *
 * @example
 * ```ts
 * const { p50, p99 } = factory.metrics!.tool("getOrderStatus")!.latencyMs;
 * ```
 */
export interface LatencySummary {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** Samples the percentiles were computed from (at most the reservoir size). */
  readonly samples: number;
}

/**
 * A uniform random sample of at most `capacity` latencies (Vitter's algorithm R): every value seen
 * has the same chance to be in it, so percentiles stay unbiased over millions of calls while
 * memory stays fixed. `max` and `count` are exact.
 *
 * @example
 * ```ts
 * const reservoir = new LatencyReservoir(1024, Math.random);
 * reservoir.add(12.5);
 * reservoir.summary().p50; // 12.5
 * ```
 * @internal
 */
export class LatencyReservoir {
  private readonly samples: number[] = [];
  private seen = 0;
  private max = 0;

  constructor(
    readonly capacity: number,
    private readonly random: () => number,
  ) {}

  /** Values offered so far. */
  get count(): number {
    return this.seen;
  }

  /** Samples held now (never more than `capacity`). */
  get size(): number {
    return this.samples.length;
  }

  add(value: number): void {
    this.seen++;
    if (value > this.max) this.max = value;
    if (this.samples.length < this.capacity) {
      this.samples.push(value);
      return;
    }
    const slot = Math.floor(this.random() * this.seen);
    if (slot < this.capacity) this.samples[slot] = value;
  }

  summary(): LatencySummary {
    const n = this.samples.length;
    if (n === 0) return { p50: 0, p90: 0, p99: 0, max: this.max, samples: 0 };
    const sorted = [...this.samples].sort((a, b) => a - b);
    const rank = (p: number): number => sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
    return { p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: this.max, samples: n };
  }

  clear(): void {
    this.samples.length = 0;
    this.seen = 0;
    this.max = 0;
  }
}
