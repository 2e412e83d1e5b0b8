import { describe, expect, it } from "vitest";
import { RingBuffer } from "./ring-buffer.js";

describe("RingBuffer", () => {
  it("keeps the newest items, oldest first, and never more than its capacity", () => {
    const buffer = new RingBuffer<number>(3);
    for (let i = 1; i <= 7; i++) {
      buffer.push(i);
      expect(buffer.size).toBeLessThanOrEqual(3);
    }
    expect(buffer.toArray()).toEqual([5, 6, 7]);
    buffer.clear();
    expect(buffer.toArray()).toEqual([]);
    buffer.push(8);
    expect(buffer.toArray()).toEqual([8]);
  });

  it("with capacity 0 keeps nothing; a negative capacity is refused", () => {
    const buffer = new RingBuffer<number>(0);
    buffer.push(1);
    expect(buffer.toArray()).toEqual([]);
    expect(() => new RingBuffer(-1)).toThrow(RangeError);
  });
});
