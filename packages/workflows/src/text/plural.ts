/**
 * `3 calls`, `1 call`: a count and its noun, for the runtime's own English (run_health notes,
 * budget notes, run reports, log lines). `many` defaults to `one` plus "s".
 *
 * @example
 * ```ts
 * plural(2, "retry", "retries"); // "2 retries"
 * ```
 * @internal
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
