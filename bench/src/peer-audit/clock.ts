// Virtual time for every framework alike. needlework's backoff and Retry-After waits and
// toolRetryMiddleware's backoff are real timers at their defaults (hundreds of milliseconds to
// seconds); instead of tuning either side, the audit runs each framework run under
// @sinonjs/fake-timers (the library behind Vitest's and Jest's fake timers) and moves the clock to
// the next timer whenever nothing else is left to run. Math.random is seeded per run, so jittered
// waits are the same on every run of the audit.
import FakeTimers from "@sinonjs/fake-timers";
import { seeded } from "./world.js";

const START = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Event-loop turns to let pending work settle before the clock moves on. */
const SETTLE_TURNS = 5;
/** Turns with no timer and no end: something waits on real I/O, which the audit never does. */
const STUCK_TURNS = 100_000;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `body` under fake timers and a seeded `Math.random`, advancing virtual time only when the
 * run has nothing else to do. Returns the run's result and the virtual milliseconds it took.
 *
 * @example
 * ```ts
 * const { value, elapsedMs } = await inVirtualTime(7, () => agent.run("..."));
 * ```
 */
export async function inVirtualTime<T>(seed: number, body: () => Promise<T>): Promise<{ value: T; elapsedMs: number }> {
  const clock = FakeTimers.install({
    now: START,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  const random = Math.random;
  Math.random = seeded(seed);
  try {
    let settled = false;
    const running = body().finally(() => {
      settled = true;
    });
    running.catch(() => {});
    let idle = 0;
    while (!settled) {
      for (let i = 0; i < SETTLE_TURNS && !settled; i++) await turn();
      if (settled) break;
      if (clock.countTimers() > 0) {
        clock.next();
        idle = 0;
      } else if (++idle > STUCK_TURNS) throw new Error("peer audit: a run waits on something other than timers");
    }
    const value = await running;
    return { value, elapsedMs: clock.now - START };
  } finally {
    clock.uninstall();
    Math.random = random;
  }
}
