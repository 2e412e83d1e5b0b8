/**
 * Watches the global `setTimeout` (install it after `vi.useFakeTimers()`), so a test can wait until
 * the SDK has started a retry wait and then advance fake time by exactly that much, and check that
 * no timer of ours (SDK request timeouts and retry waits, resilience timeouts) is left pending.
 * Node's fetch (undici) schedules its own keep-alive timers through the same global; those are not
 * ours and are not counted. Call `dispose()` before `vi.useRealTimers()`.
 */
export interface TimerWatch {
  /** Every delay scheduled so far, in order (undici's included). */
  readonly delays: readonly number[];
  /** Resolves with the first delay after the previous match that satisfies `match`. */
  next(match: (ms: number) => boolean): Promise<number>;
  /**
   * Timers scheduled outside Node's HTTP client that have neither fired nor been cleared and hold
   * the process open: resilience keeps one timer armed but `unref`'d between calls, which is not counted.
   */
  pending(): number;
  dispose(): void;
}

const UNDICI = "node:internal/deps/undici";

export function watchTimers(): TimerWatch {
  const delays: number[] = [];
  const own = new Set<unknown>();
  let cursor = 0;
  let waiter: { match: (ms: number) => boolean; resolve: (ms: number) => void } | undefined;
  const scan = (): void => {
    if (!waiter) return;
    for (; cursor < delays.length; cursor++) {
      const ms = delays[cursor]!;
      if (waiter.match(ms)) {
        const { resolve } = waiter;
        waiter = undefined;
        cursor++;
        resolve(ms);
        return;
      }
    }
  };
  const originalSet = globalThis.setTimeout;
  const originalClear = globalThis.clearTimeout;
  const watchedSet = ((handler: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
    delays.push(ms ?? 0);
    const ours = !(new Error().stack ?? "").includes(UNDICI);
    const timer: unknown = originalSet(
      (...args: unknown[]) => {
        own.delete(timer);
        handler(...args);
      },
      ms,
      ...rest,
    );
    if (ours) own.add(timer);
    scan();
    return timer;
  }) as typeof setTimeout;
  const watchedClear = ((timer: Parameters<typeof clearTimeout>[0]) => {
    own.delete(timer);
    originalClear(timer);
  }) as typeof clearTimeout;
  globalThis.setTimeout = watchedSet;
  globalThis.clearTimeout = watchedClear;
  return {
    delays,
    next(match) {
      return new Promise((resolve) => {
        waiter = { match, resolve };
        scan();
      });
    },
    pending: () => [...own].filter((t) => typeof t !== "object" || (t as { hasRef(): boolean }).hasRef()).length,
    dispose() {
      if (globalThis.setTimeout === watchedSet) globalThis.setTimeout = originalSet;
      if (globalThis.clearTimeout === watchedClear) globalThis.clearTimeout = originalClear;
    },
  };
}
