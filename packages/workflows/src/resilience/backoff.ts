/** The retry settings the backoff reads. @internal */
export interface BackoffSettings {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: number;
}

/**
 * The wait before retry number `retry` (1 = the wait after the first attempt): `baseDelayMs * 2^(retry-1)`
 * capped at `maxDelayMs`, then `jitter` of it randomized: `d * (1 - jitter + jitter * random())`.
 * A `random` outside [0, 1] is clamped, so a faulty source cannot produce a negative or larger delay.
 *
 * @example
 * ```ts
 * backoffDelayMs(3, { baseDelayMs: 200, maxDelayMs: 5000, jitter: 0 }, Math.random); // 800
 * ```
 * @internal
 */
export function backoffDelayMs(retry: number, settings: BackoffSettings, random: () => number): number {
  // The exponent is clamped so that 0 * 2^n never becomes 0 * Infinity = NaN.
  const exponential = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.min(retry - 1, 1000));
  if (settings.jitter === 0 || exponential === 0) return exponential;
  const r = random();
  const unit = r >= 0 && r <= 1 ? r : r > 1 ? 1 : 0;
  return exponential * (1 - settings.jitter + settings.jitter * unit);
}
