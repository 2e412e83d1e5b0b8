import { vi } from "vitest";

/** The fake timers set since {@link useFakeTimers} that have neither fired nor been cleared. */
const pending = new Set<ReturnType<typeof setTimeout>>();

/**
 * `vi.useFakeTimers()`, keeping track of the timeouts set from then on, so that a test can ask
 * which still hold the process open ({@link heldTimers}). `vi.getTimerCount()` cannot tell: the
 * resilience layer keeps one timer armed between calls, `unref`'d, so that calls in a row cost no
 * `setTimeout`/`clearTimeout`; that timer does nothing when it fires and keeps no process alive.
 * `vi.useRealTimers()` restores the real functions as usual.
 */
export function useFakeTimers(config?: Parameters<typeof vi.useFakeTimers>[0]): void {
  vi.useFakeTimers(config);
  pending.clear();
  const fakeSetTimeout = globalThis.setTimeout;
  const fakeClearTimeout = globalThis.clearTimeout;
  const tracked = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = fakeSetTimeout(
      (...given: unknown[]) => {
        pending.delete(handle);
        callback(...given);
      },
      ms,
      ...args,
    );
    pending.add(handle);
    return handle;
  };
  globalThis.setTimeout = tracked as typeof setTimeout;
  globalThis.clearTimeout = ((handle: ReturnType<typeof setTimeout> | undefined) => {
    if (handle !== undefined) pending.delete(handle);
    fakeClearTimeout(handle);
  }) as typeof clearTimeout;
}

/** How many timeouts set since {@link useFakeTimers} are pending and hold the process open (not `unref`'d). */
export function heldTimers(): number {
  let held = 0;
  for (const handle of pending) if (typeof handle !== "object" || handle.hasRef()) held++;
  return held;
}
