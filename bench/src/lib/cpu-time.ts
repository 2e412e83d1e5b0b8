/**
 * Median CPU time of this process per call (`process.cpuUsage()`, user + system, in ns) of a case
 * whose `fn` makes `calls` calls: `samples` samples, each running `fn` until at least `sampleMs` of
 * wall time passed, so the counter's microsecond resolution stays under 1% of a sample.
 *
 * On a shared machine CPU time moves less than wall time: the time the process waits for a core is
 * not counted. It does count the process's other threads (the garbage collector's, the compiler's),
 * which are part of what a call costs.
 */
export async function cpuNsPerCall(fn: () => unknown, calls: number, samples = 15, sampleMs = 5): Promise<number> {
  const perCall: number[] = [];
  for (let s = 0; s < samples; s++) {
    const until = performance.now() + sampleMs;
    let runs = 0;
    const start = process.cpuUsage();
    do {
      await fn();
      runs++;
    } while (performance.now() < until);
    const used = process.cpuUsage(start);
    perCall.push(((used.user + used.system) * 1000) / (runs * calls));
  }
  return median(perCall);
}

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
