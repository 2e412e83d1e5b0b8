import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";

beforeEach(() => useFakeTimers());
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

  it("holds no process open once every deadline is cancelled, and compacts many cancelled ones", () => {
    const scheduler = new DeadlineScheduler();
    const deadlines = Array.from({ length: 1_000 }, (_, i) => scheduler.after(1_000 + i, () => {}));
    let late = false;
    scheduler.after(5_000, () => (late = true));
    for (const deadline of deadlines) deadline.cancel();
    expect(heldTimers()).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(late).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps its timer between deadlines, unref'd, and reuses it for a later deadline", () => {
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const scheduler = new DeadlineScheduler();
    scheduler.after(30_000, () => {}).cancel();
    expect(heldTimers()).toBe(0); // armed but unref'd: the process may exit
    expect(vi.getTimerCount()).toBe(1);

    // Calls in a row: each sets a later deadline and cancels it; no new timer, the one timer is held meanwhile.
    for (let i = 0; i < 100; i++) {
      vi.advanceTimersByTime(10);
      const deadline = scheduler.after(30_000, () => {});
      expect(heldTimers()).toBe(1);
      deadline.cancel();
    }
    expect(setTimeoutSpy).toHaveBeenCalledTimes(1);
    expect(heldTimers()).toBe(0);

    // The timer fires early for a deadline set after it was armed, finds nothing due and re-arms for it.
    let fired = false;
    scheduler.after(30_000, () => (fired = true));
    vi.advanceTimersByTime(30_000 - 1_000);
    expect(fired).toBe(false);
    expect(setTimeoutSpy).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1_000);
    expect(fired).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("re-arms for an earlier deadline", () => {
    const scheduler = new DeadlineScheduler();
    const fired: number[] = [];
    scheduler.after(30_000, () => fired.push(30_000));
    scheduler.after(10, () => fired.push(10));
    vi.advanceTimersByTime(10);
    expect(fired).toEqual([10]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(29_990);
    expect(fired).toEqual([10, 30_000]);
  });

  it("replaces a timer made by other timer functions (real ones, before fake timers were installed)", () => {
    vi.useRealTimers();
    const scheduler = new DeadlineScheduler();
    scheduler.after(60_000, () => {}).cancel(); // a real timer, kept idle and unref'd
    useFakeTimers();
    let fired = false;
    scheduler.after(120_000, () => (fired = true)); // later than the real timer: still armed on the fake clock
    vi.advanceTimersByTime(120_000);
    expect(fired).toBe(true);
  });
});
