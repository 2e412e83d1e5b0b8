import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineScheduler } from "./deadline-scheduler.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("DeadlineScheduler", () => {
  it("fires deadlines in due order (ties in the order set) with one timer, and skips cancelled ones", () => {
    const scheduler = new DeadlineScheduler();
    const fired: string[] = [];
    scheduler.after(300, () => fired.push("c"));
    scheduler.after(100, () => fired.push("a"));
    const cancelled = scheduler.after(200, () => fired.push("x"));
    scheduler.after(300, () => fired.push("d"));
    scheduler.after(100, () => fired.push("b"));
    expect(vi.getTimerCount()).toBe(1);
    cancelled.cancel();
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a", "b"]);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(["a", "b", "c", "d"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no timer once every deadline is cancelled, and compacts many cancelled ones", () => {
    const scheduler = new DeadlineScheduler();
    const deadlines = Array.from({ length: 1_000 }, (_, i) => scheduler.after(1_000 + i, () => {}));
    let late = false;
    scheduler.after(5_000, () => (late = true));
    for (const deadline of deadlines) deadline.cancel();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(late).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
