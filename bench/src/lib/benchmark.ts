import type { BenchOptions } from "tinybench";

/** One measured case of a benchmark. */
export interface BenchmarkCase {
  /** A short label, shown in the table. */
  readonly name: string;
  /** The operation measured; runs many times. */
  readonly fn: () => unknown;
  /** Size of the input in bytes: adds a throughput column (MB/s), which shows whether cost is linear. */
  readonly bytes?: number;
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
  /** Facts about the inputs or outputs worth keeping with the figures (sizes, token counts, ...). */
  notes?(): Record<string, unknown>;
}

/** Declares a benchmark (identity function, for type checking). */
export function defineBenchmark(benchmark: Benchmark): Benchmark {
  return benchmark;
}
