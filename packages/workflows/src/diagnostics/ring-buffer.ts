/**
 * A fixed-capacity buffer that keeps the newest `capacity` items: pushing into a full buffer
 * overwrites the oldest. Memory is allocated once, whatever the number of pushes.
 *
 * @example
 * ```ts
 * const buffer = new RingBuffer<number>(2);
 * buffer.push(1); buffer.push(2); buffer.push(3);
 * buffer.toArray(); // [2, 3]
 * ```
 * @internal
 */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  /** Where the next item goes. */
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`RingBuffer: capacity must be a non-negative integer, not ${String(capacity)}.`);
    this.items = new Array<T | undefined>(capacity);
  }

  /** Items held now (never more than `capacity`). */
  get size(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.capacity === 0) return;
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** A copy, oldest first. */
  toArray(): T[] {
    const out: T[] = new Array<T>(this.count);
    const start = (this.head - this.count + this.capacity) % Math.max(this.capacity, 1);
    for (let i = 0; i < this.count; i++) out[i] = this.items[(start + i) % this.capacity] as T;
    return out;
  }

  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.count = 0;
  }
}
