/** A deadline in a {@link DeadlineScheduler}; `cancel()` it when it is no longer needed. @internal */
export interface Deadline {
  cancel(): void;
}

class Entry implements Deadline {
  cancelled = false;
  constructor(
    readonly at: number,
    readonly seq: number,
    readonly fire: () => void,
    private readonly owner: DeadlineScheduler,
  ) {}
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.owner.dropped();
  }
}

/** The armed timer, with the timer functions that made it (fake ones in tests). */
interface Timer {
  readonly handle: ReturnType<typeof setTimeout>;
  readonly setTimeout: typeof setTimeout;
  readonly clearTimeout: typeof clearTimeout;
}

/** Whether a timer holds the process open (Node, Bun); where timers are plain numbers (Deno, workers), a no-op. */
function setRef(handle: ReturnType<typeof setTimeout>, held: boolean): void {
  if (typeof handle !== "object") return;
  if (held) handle.ref();
  else handle.unref();
}

const earlier = (a: Entry, b: Entry): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * One timer for many deadlines: a min-heap ordered by due time (ties in the order they were set)
 * and a single `setTimeout` for the earliest. Setting and cancelling a deadline costs a heap
 * operation, not a timer; cancelled entries are dropped lazily and compacted when they outnumber
 * the live ones.
 *
 * The timer is not cleared when the last deadline is cancelled: it stays armed but `unref`'d, so it
 * holds no process open, and a later deadline that is due after it reuses it (the timer fires
 * early, finds nothing due and re-arms for the earliest live deadline). Calls that each set and
 * cancel a deadline thus cost no `setTimeout`/`clearTimeout` in the steady state; see the
 * `tool-call` and `event-loop` benchmarks. The clock and the timer functions are read at call
 * time, so fake timers apply.
 *
 * @example
 * ```ts
 * const scheduler = new DeadlineScheduler();
 * const deadline = scheduler.after(1_000, () => console.log("late"));
 * deadline.cancel();
 * ```
 * @internal
 */
export class DeadlineScheduler {
  private heap: Entry[] = [];
  private seq = 0;
  /** Entries in the heap that are cancelled but not yet dropped. */
  private cancelled = 0;
  private timer: Timer | undefined;
  /** When the timer fires (`performance.now()` time), or `Infinity` when there is none. */
  private timerAt = Infinity;
  private readonly tick = (): void => this.run();

  /** Calls `fire` once `ms` milliseconds from now have passed, unless cancelled first. */
  after(ms: number, fire: () => void): Deadline {
    return this.at(performance.now() + Math.max(ms, 0), fire);
  }

  /** Calls `fire` once the clock (`performance.now()`) reaches `at`, unless cancelled first. */
  at(at: number, fire: () => void): Deadline {
    const entry = new Entry(at, this.seq++, fire, this);
    this.push(entry);
    const timer = this.timer;
    // A timer made by other timer functions (real ones, before a test installed fake ones) is replaced.
    if (at < this.timerAt || timer?.setTimeout !== setTimeout) this.arm(at);
    else setRef(timer.handle, true);
    return entry;
  }

  /** @internal A deadline was cancelled. */
  dropped(): void {
    this.cancelled++;
    if (this.cancelled === this.heap.length) {
      // Nothing live is left: keep the timer for the next deadline, but let the process exit.
      this.heap.length = 0;
      this.cancelled = 0;
      if (this.timer) setRef(this.timer.handle, false);
    } else if (this.cancelled > 64 && this.cancelled * 2 > this.heap.length) this.compact();
  }

  private arm(at: number): void {
    this.timer?.clearTimeout(this.timer.handle);
    this.timerAt = at;
    // Whole milliseconds, so that the timers share Node's list for one duration; an early tick re-arms.
    const handle = setTimeout(this.tick, Math.max(0, Math.round(at - performance.now())));
    this.timer = { handle, setTimeout, clearTimeout };
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let head = this.heap[0];
    while (head !== undefined && (head.cancelled || head.at <= now)) {
      this.pop();
      if (head.cancelled) this.cancelled--;
      else {
        head.cancelled = true;
        head.fire();
      }
      head = this.heap[0];
    }
    if (head !== undefined && this.timer === undefined) this.arm(head.at);
  }

  private compact(): void {
    const live = this.heap.filter((entry) => !entry.cancelled);
    live.sort((a, b) => (earlier(a, b) ? -1 : 1));
    this.heap = live;
    this.cancelled = 0;
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(entry, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && earlier(heap[right]!, heap[left]!) ? right : left;
      if (!earlier(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
