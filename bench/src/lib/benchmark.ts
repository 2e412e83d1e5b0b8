import type { BenchOptions } from "tinybench";

/** One measured case of a benchmark. */
export interface BenchmarkCase {
  /** A short label, shown in the table. */
  readonly name: string;
  /** The operation measured; runs many times. */
  readonly fn: () => unknown;
  /** Size of the input in bytes: adds a throughput column (MB/s), which shows whether cost is linear. */
  readonly bytes?: number;
  /**
   * How many operations one run of `fn` performs (a loop of calls, or a round of tool calls). When
   * any case of a benchmark sets it, the table reports nanoseconds per operation instead of ms.
   */
  readonly calls?: number;
  /**
   * Marks the reference case (the direct call): this case and the ones after it, up to the next
   * floor, get a "× floor" column (their ns per call over the floor's).
   */
  readonly floor?: boolean;
}

/** A figure a benchmark measures itself rather than through tinybench (memory, one long run). */
export interface Measurement {
  /** A short label, shown in the first column. */
  readonly name: string;
  /** Further columns. */
  readonly [column: string]: string | number | boolean;
}

/** One timed case as the runner saw it, handed to {@link Benchmark.goals}. */
export interface CaseResult {
  /** Median of the samples, in ms per run of `fn`. */
  readonly medianMs: number;
  /**
   * Median per operation, in ns (only for cases with `calls`), on the clock the run was asked for:
   * wall time by default, CPU time of the process with `--cpu` (see {@link CaseResult.cpuNsPerCall}).
   */
  readonly nsPerCall?: number;
  /** Median wall time per operation, in ns (only for cases with `calls`). */
  readonly wallNsPerCall?: number;
  /**
   * Median CPU time of this process per operation (`process.cpuUsage()`, user + system), in ns (only
   * for cases with `calls`). On a shared machine it moves less than wall time: time the process spends
   * waiting for a core is not counted.
   */
  readonly cpuNsPerCall?: number;
}

/** A target the benchmark states about its own figures; reported, never enforced. */
export interface Goal {
  /** What is wanted, in words ("documented stack under 1.5 µs per call"). */
  readonly goal: string;
  /** The figure measured, in words. */
  readonly measured: string;
  readonly met: boolean;
}

/**
 * A benchmark: one file under bench/src named `<name>.bench.ts` whose default export is made with
 * {@link defineBenchmark}. `pnpm bench` runs every file (or those whose name contains an argument),
 * prints a table and writes bench/results/<name>.json.
 */
export interface Benchmark {
  /** Stable name: the results file is bench/results/<name>.json. */
  readonly name: string;
  /** What is measured and why, one or two sentences. */
  readonly description: string;
  /** tinybench options; the runner defaults to 1 s and at least 10 samples per case. */
  readonly options?: BenchOptions;
  /** Builds the inputs (not measured) and returns the cases. Throw if a case gives a wrong answer. */
  cases(): BenchmarkCase[] | Promise<BenchmarkCase[]>;
  /** Figures measured outside tinybench, after the cases ran (e.g. heap after a million calls). */
  measure?(): Measurement[] | Promise<Measurement[]>;
  /** Targets checked against the results (by case name); printed and kept in the results file. */
  goals?(results: ReadonlyMap<string, CaseResult>, measurements: readonly Measurement[]): Goal[];
  /** Facts about the inputs or outputs worth keeping with the figures (sizes, token counts, ...). */
  notes?(): Record<string, unknown>;
}

/** Declares a benchmark (identity function, for type checking). */
export function defineBenchmark(benchmark: Benchmark): Benchmark {
  return benchmark;
}
