import type { InvokeOptions } from "@needlework/core";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { useResilienceHarness } from "../../test/support/resilience-harness.js";
import type { ResilienceOptions } from "./resilience.options.js";

// Issue 16, item 11: a tool that ignores its signal keeps its bulkhead slot until its body settles,
// while its caller is answered at once (attempt timeout, abort).

let running = 0;
let peak = 0;
const gates: Array<() => void> = [];

const harness = useResilienceHarness();

/** The idempotent tool's body: ignores its signal; ends when released. */
function stubborn() {
  running++;
  peak = Math.max(peak, running);
  return new Promise<string>((resolve) =>
    gates.push(() => {
      running--;
      resolve("done");
    }),
  );
}

/** An invoker of the stubborn tool; each call resolves with its outcome or the error it threw. */
function setup(options: ResilienceOptions) {
  const invoke = harness.setup(options);
  return (invokeOptions?: InvokeOptions) => invoke("idem", invokeOptions).promise.catch((error: unknown) => error);
}

beforeEach(() => {
  running = 0;
  peak = 0;
  gates.length = 0;
  harness.handle("idem", stubborn);
});

describe("resilience: isolation of tools that ignore their signal", () => {
  it("limit 2, 40 calls timing out and retrying: never more than 2 bodies at once, every caller answered on time", async () => {
    const invoke = setup({
      retry: { maxAttempts: 2, baseDelayMs: 10, jitter: 0 },
      attemptTimeoutMs: 100,
      totalTimeoutMs: 10_000,
      bulkhead: { limit: 2, queue: 100 },
    });
    const calls = Array.from({ length: 40 }, () => invoke());
    for (let i = 0; i < 50; i++) await vi.advanceTimersByTimeAsync(100);
    expect(peak).toBe(2);
    // Release the bodies one at a time: each freed slot starts at most one queued body.
    while (gates.length > 0) {
      gates.shift()!();
      await vi.advanceTimersByTimeAsync(0);
      expect(running).toBeLessThanOrEqual(2);
    }
    await vi.runAllTimersAsync();
    while (gates.length > 0) gates.shift()!();
    const results = await Promise.all(calls);
    expect(peak).toBe(2);
    expect(
      results.every((r) => (r as { status?: string }).status === "ok" || (r as { code?: string }).code === "TIMEOUT"),
    ).toBe(true);
  });

  it("answers a caller whose attempt timed out at once, while its body keeps the slot", async () => {
    const invoke = setup({ retry: false, attemptTimeoutMs: 100, bulkhead: { limit: 1, queue: 1 } });
    const first = invoke();
    await vi.advanceTimersByTimeAsync(100);
    expect(await first).toMatchObject({ code: "TIMEOUT" });
    const second = invoke();
    await vi.advanceTimersByTimeAsync(50);
    expect(running).toBe(1); // the first body still holds the only slot: the second waits
    gates.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    expect(running).toBe(1);
    gates.shift()!();
    expect(await second).toMatchObject({ status: "ok" });
  });

  it("settles at once with the abort when the caller aborts, with or without an attempt timeout", async () => {
    for (const options of [
      { retry: false as const },
      {
        retry: false as const,
        attemptTimeoutMs: false as const,
        totalTimeoutMs: false as const,
        circuitBreaker: false as const,
      },
    ]) {
      const invoke = setup(options);
      const controller = new AbortController();
      const call = invoke({ signal: controller.signal });
      await vi.advanceTimersByTimeAsync(10);
      controller.abort();
      await vi.advanceTimersByTimeAsync(0);
      let settled = false;
      void call.then(() => (settled = true));
      await Promise.resolve();
      await Promise.resolve();
      expect(settled).toBe(true);
      expect(await call).toMatchObject({ name: "AbortError" });
      gates.shift()!();
    }
  });
});
