// Virtual time for every framework alike. needlework's backoff and Retry-After waits and
// toolRetryMiddleware's backoff are real timers at their defaults (hundreds of milliseconds to
// seconds); instead of tuning either side, the audit runs each framework run under
// @sinonjs/fake-timers (the library behind Vitest's and Jest's fake timers) and moves the clock to
// the next timer whenever nothing else is left to run. Math.random is seeded per run, so jittered
// waits are the same on every run of the audit.
// The clock does not move while a client's request is on the wire (loopback.ts counts them): a
// request to the loopback server takes real time, and a timer must not fire early in the meantime.
import FakeTimers from "@sinonjs/fake-timers";
import { clearTimeout as realClear, setTimeout as realTimeout } from "node:timers";
import { noRequestInFlight, requestsInFlight } from "./loopback.js";
import { seeded } from "./world.js";

const START = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Event-loop turns to let pending work settle before the clock moves on. */
const SETTLE_TURNS = 5;
/** Turns with no timer and no end: something waits on real I/O, which the audit never does. */
const STUCK_TURNS = 100_000;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Real milliseconds a request to the loopback server may take before the audit gives up on it. */
const WIRE_MS = 30_000;

function wire(): Promise<void> {
  let timer: ReturnType<typeof realTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = realTimeout(() => reject(new Error("peer audit: a request to the loopback server never ended")), WIRE_MS);
  });
  return Promise.race([noRequestInFlight(), late]).finally(() => realClear(timer));
}

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
      if (requestsInFlight() > 0) {
        await wire();
        idle = 0;
        continue;
      }
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
