import type { BenchmarkCase } from "./benchmark.js";

/**
 * A case that awaits `op` `calls` times in a row per sample: one call of a fast tool is too short to
 * time on its own, so the runner divides each sample by `calls` (ns per call).
 */
export function perCall(
  name: string,
  calls: number,
  op: () => unknown,
  extra: { floor?: boolean } = {},
): BenchmarkCase {
  return {
    name,
    calls,
    ...extra,
    fn: async () => {
      for (let i = 0; i < calls; i++) await op();
    },
  };
}

/** Runs `op` once and throws unless `check` accepts what it returned, so a fast wrong answer cannot pass. */
export async function expectResult<T>(
  label: string,
  op: () => T | Promise<T>,
  check: (value: Awaited<T>) => boolean,
): Promise<void> {
  let value: Awaited<T>;
  try {
    value = await op();
  } catch (error) {
    throw new Error(`${label}: threw ${String(error)}`);
  }
  if (!check(value)) throw new Error(`${label}: unexpected result ${JSON.stringify(value)}`);
}

/** Runs `op` once and throws unless it rejects (for peers that report failures by throwing). */
export async function expectRejection(label: string, op: () => unknown): Promise<void> {
  try {
    await op();
  } catch {
    return;
  }
  throw new Error(`${label}: expected a rejection`);
}

/** Formats ns for goal lines: "812 ns", "1.42 µs" or "2.17 ms". */
export function formatNs(ns: number | undefined): string {
  if (ns === undefined) return "n/a";
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${Math.round(ns)} ns`;
}
