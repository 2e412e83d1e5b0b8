/** A timer scheduled on a {@link ManualClock}. */
interface ManualTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/**
 * A clock that moves only when told to: `now()` for anything that takes a clock (the agent's
 * `clock` option, your own services), and `setTimeout`/`sleep` that fire when `advance()` passes
 * their time, in time order. Framework-agnostic: it patches nothing global. (The resilience plugin
 * waits on the global timers: drive those with your test runner's fake timers, e.g.
 * `vi.useFakeTimers()`, and fix its jitter with `random: seededRandom(1)`.)
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.parse("2025-01-01T00:00:00Z"));
 * const agent = factory.createAgent({ name: "support", instructions, chatClient, clock: clock.now });
 * const poll = service.waitForShipment("o1", { sleep: clock.sleep });
 * clock.advance(60_000); // the sleep resolves; checkpoints and dead letters carry the fake time
 * ```
 */
export class ManualClock {
  private time: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  /** Starts at `start` (epoch milliseconds or a Date); default 0. */
  constructor(start: number | Date = 0) {
    this.time = typeof start === "number" ? start : start.getTime();
    if (!Number.isFinite(this.time))
      throw new RangeError(`ManualClock: start must be a finite time, not ${String(start)}.`);
  }

  /** The current time in epoch milliseconds; bound, so `clock: clock.now` works. */
  readonly now = (): number => this.time;

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Calls `callback` once the clock has advanced `ms` from now. Returns an id for `clearTimeout`. */
  readonly setTimeout = (callback: () => void, ms = 0): number => {
    const id = this.nextId++;
    this.timers.push({ id, at: this.time + Math.max(0, ms), callback });
    return id;
  };

  /** Cancels a timer; unknown ids are ignored. */
  readonly clearTimeout = (id: number | undefined): void => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };

  /** A promise that resolves once the clock has advanced `ms`; rejects at once if `signal` aborts. */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = (): void => {
        this.clearTimeout(id);
        reject(signal!.reason as Error);
      };
      const id = this.setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });

  /**
   * Moves the clock forward by `ms`, firing every timer that falls due, in time order (a timer
   * scheduled by a callback fires too if it falls within the advance). Throws for a negative `ms`.
   */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms))
      throw new RangeError(`ManualClock: advance by a finite number of milliseconds of 0 or more, not ${String(ms)}.`);
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.callback();
    }
    this.time = end;
  }

  /** Jumps to `time` (not backwards), firing what falls due on the way. */
  set(time: number | Date): void {
    const target = typeof time === "number" ? time : time.getTime();
    if (target < this.time) throw new RangeError("ManualClock: time cannot go backwards; create a new clock instead.");
    this.advance(target - this.time);
  }
}
