import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CircuitBreaker } from "./circuit-breaker.js";
import { ResilienceEmitters } from "./resilience-events.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function breakerWithLog(threshold = 2): { breaker: CircuitBreaker; log: string[] } {
  const emitters = new ResilienceEmitters();
  const log: string[] = [];
  emitters.events.onBreak(({ tool }) => log.push(`break ${tool}`));
  emitters.events.onHalfOpen(({ tool }) => log.push(`halfOpen ${tool}`));
  emitters.events.onReset(({ tool }) => log.push(`reset ${tool}`));
  return { breaker: new CircuitBreaker("refund", threshold, 1_000, emitters), log };
}

describe("CircuitBreaker", () => {
  it("opens after consecutive failures only: a success resets the count, an uncounted outcome does not", () => {
    const { breaker, log } = breakerWithLog(2);
    breaker.record("closed", "failure");
    breaker.record("closed", "success");
    breaker.record("closed", "failure");
    breaker.record("closed", "uncounted");
    expect(breaker.admit()).toBe("closed");
    breaker.record("closed", "failure");
    expect(log).toEqual(["break refund"]);
    expect(breaker.admit()).toBe("open");
  });

  it("after halfOpenAfterMs lets one trial through while the others wait for it", async () => {
    const { breaker, log } = breakerWithLog(1);
    breaker.record("closed", "failure");
    vi.advanceTimersByTime(999);
    expect(breaker.admit()).toBe("open");
    vi.advanceTimersByTime(1);
    expect(breaker.admit()).toBe("trial");
    const waiting = breaker.admit();
    expect(waiting).toBeInstanceOf(Promise);
    let released = false;
    void (waiting as Promise<void>).then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);

    breaker.record("trial", "failure"); // the trial failed: open again, the waiters are released to ask again
    await Promise.resolve();
    expect(released).toBe(true);
    expect(breaker.admit()).toBe("open");
    vi.advanceTimersByTime(1_000);
    expect(breaker.admit()).toBe("trial");
    breaker.record("trial", "uncounted"); // a trial that ends uncounted closes the circuit, as in cockatiel
    expect(breaker.admit()).toBe("closed");
    expect(log).toEqual(["break refund", "halfOpen refund", "break refund", "halfOpen refund", "reset refund"]);
  });

  it("ignores the outcome of an attempt admitted before the circuit opened", () => {
    const { breaker, log } = breakerWithLog(1);
    breaker.record("closed", "failure");
    breaker.record("closed", "failure"); // a concurrent attempt that started while closed
    breaker.record("closed", "success");
    expect(breaker.admit()).toBe("open");
    expect(log).toEqual(["break refund"]);
  });
});
