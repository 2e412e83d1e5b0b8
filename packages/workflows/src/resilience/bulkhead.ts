/**
 * A per-tool concurrency limit with a bounded queue. Written here rather than taken from cockatiel:
 * cockatiel's bulkhead frees a slot when the function it runs settles, which for a timed-out
 * attempt is when resilience stops waiting, not when the tool body stops (issue: 40 bodies ran at
 * once under `limit: 2`); and a queued wait there cannot be withdrawn when its caller gives up.
 *
 * @example
 * ```ts
 * const bulkhead = new Bulkhead(2, 0);
 * const release = bulkhead.tryAcquire();
 * if (release) release();
 * ```
 * @internal
 */
export class Bulkhead {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly queue: number,
  ) {}

  /** Takes a free slot: returns the function that frees it, or `undefined` when none is free. */
  tryAcquire(): (() => void) | undefined {
    if (this.running >= this.limit || this.waiting.length > 0) return undefined;
    this.running++;
    return this.releaser();
  }

  /** Whether a call may wait in the queue for a slot. */
  canQueue(): boolean {
    return this.waiting.length < this.queue;
  }

  /**
   * Waits in the queue: `granted` gets the release function once a slot frees. Returns the
   * function that withdraws the wait (a no-op once granted).
   */
  enqueue(granted: (release: () => void) => void): () => void {
    const waiter = (): void => granted(this.releaser());
    this.waiting.push(waiter);
    return () => {
      const index = this.waiting.indexOf(waiter);
      if (index >= 0) this.waiting.splice(index, 1);
    };
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else this.running--;
    };
  }
}
