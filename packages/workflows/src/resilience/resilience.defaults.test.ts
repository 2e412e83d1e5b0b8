import { CircuitOpenError, TimeoutError, TransientError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { never, useResilienceHarness } from "../../test/support/resilience-harness.js";

// The defaults in action: only the random source is fixed (0.5, so waits are 0.75 of the delay).

const { handle, calls, setup } = useResilienceHarness({ now: 0 });

/** Records the time of each attempt while the tool keeps failing transiently. */
function recordAttemptTimes(): number[] {
  const times: number[] = [];
  handle("idem", () => {
    times.push(Date.now());
    throw new TransientError("blip");
  });
  return times;
}

describe("resilience defaults, observed", () => {
  it("3 attempts in total, waiting 200 ms then 400 ms before half jitter", async () => {
    const times = recordAttemptTimes();
    const call = setup()("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(times).toEqual([0, 150, 450]);
    expect(call.state.error).toBeInstanceOf(TransientError);
  });

  it("waits double from 200 ms and are capped at 5000 ms", async () => {
    const times = recordAttemptTimes();
    const call = setup({ retry: { maxAttempts: 8 }, circuitBreaker: false })("idem"); // the breaker would open after 5
    await vi.runAllTimersAsync();
    await call.settled;
    const waits = times.slice(1).map((t, i) => t - times[i]!);
    expect(waits).toEqual([150, 300, 600, 1_200, 2_400, 3_750, 3_750]);
  });

  it("an attempt times out after 30 s", async () => {
    handle("idem", () => never());
    const call = setup({ retry: false })("idem");
    await vi.advanceTimersByTimeAsync(29_999);
    expect(call.state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(call.state.error).toMatchObject({ code: "TIMEOUT", timeoutMs: 30_000 });
  });

  it("a call ends after 120 s in total", async () => {
    handle("slow", () => never());
    const call = setup()("slow");
    await vi.advanceTimersByTimeAsync(119_999);
    expect(call.state.done).toBe(false);
    expect(calls()).toBe(2); // attempt 1 timed out at 100 s, attempt 2 started at 100.15 s
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(call.state.error).toBeInstanceOf(TimeoutError);
    expect(call.state.error).toMatchObject({ timeoutMs: 120_000 });
  });

  it("a tool's circuit opens after 5 consecutive failures and half-opens after 30 s", async () => {
    handle("plain", () => {
      throw new TypeError("bug");
    });
    const invoke = setup();
    for (let i = 0; i < 5; i++) expect((await invoke("plain").settled).error).toBeInstanceOf(TypeError);
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(29_999);
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(1);
    handle("plain", () => "back");
    expect((await invoke("plain").settled).value).toMatchObject({ status: "ok", data: "back" });
    expect(calls()).toBe(6);
  });

  it("has no bulkhead: 50 concurrent calls of one tool all run", async () => {
    handle("plain", () => never());
    const invoke = setup();
    const pending = Array.from({ length: 50 }, () => invoke("plain"));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls()).toBe(50);
    await vi.advanceTimersByTimeAsync(30_000);
    await Promise.all(pending.map((p) => p.settled));
    // A timed-out call of a non-idempotent tool: its effect may have happened.
    expect(pending.every((p) => (p.state.error as TimeoutError).code === "OUTCOME_UNKNOWN")).toBe(true);
  });
});
