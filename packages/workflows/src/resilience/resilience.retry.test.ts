import { TimeoutError, ToolError, ToolResult, TransientError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { toolResultMiddleware } from "../tool-result/index.js";
import { never, useResilienceHarness } from "../../test/support/resilience-harness.js";

const { handle, setup } = useResilienceHarness();

describe("resilience: retries", () => {
  it("a flaky idempotent tool succeeds on attempt 3 after exponential, jittered waits", async () => {
    const attempts: number[] = [];
    handle("idem", (ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt < 3) throw new TransientError("blip");
      return { ok: true };
    });
    const call = setup()("idem");
    await vi.advanceTimersByTimeAsync(149);
    expect(attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1); // 200 ms * 0.75
    expect(attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(299);
    expect(attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1); // 400 ms * 0.75
    await call.settled;
    expect(attempts).toEqual([1, 2, 3]);
    expect(call.state.value).toMatchObject({ status: "ok", data: { ok: true }, metadata: { attempts: 3 } });
  });

  it("runs a non-idempotent tool that throws a transient error exactly once and rethrows the error", async () => {
    const error = new TransientError("blip");
    let calls = 0;
    handle("plain", () => {
      calls++;
      throw error;
    });
    const call = setup()("plain");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(calls).toBe(1);
    expect(call.state.error).toBe(error);
  });

  it("retries a transient ToolResult.fail for a non-idempotent tool", async () => {
    handle("plain", (ctx) =>
      ctx.attempt < 3 ? ToolResult.fail("Locked", { code: "LOCKED", transient: true }) : ToolResult.ok("done"),
    );
    const call = setup()("plain");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(call.state.value).toMatchObject({ status: "ok", data: "done", metadata: { attempts: 3 } });
  });

  it("returns the last transient failed result when attempts run out", async () => {
    let calls = 0;
    handle("plain", (ctx) => {
      calls++;
      return ToolResult.fail(`Locked (attempt ${ctx.attempt})`, { code: "LOCKED", transient: true });
    });
    const call = setup({ retry: { maxAttempts: 4 } })("plain");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(calls).toBe(4);
    expect(call.state.value).toMatchObject({
      status: "error",
      errorCode: "LOCKED",
      retriable: true,
      message: "Locked (attempt 4)",
      metadata: { attempts: 4 },
    });
  });

  it("rethrows the last error when attempts run out", async () => {
    const errors: Error[] = [];
    handle("idem", () => {
      const error = new TransientError(`blip ${errors.length + 1}`);
      errors.push(error);
      throw error;
    });
    const call = setup({ retry: { maxAttempts: 2 } })("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(errors).toHaveLength(2);
    expect(call.state.error).toBe(errors[1]);
  });

  it("never retries a non-transient failure, returned or thrown", async () => {
    let calls = 0;
    handle("plain", () => {
      calls++;
      return ToolResult.fail("Order not found", { code: "ORDER_NOT_FOUND" });
    });
    handle("idem", () => {
      calls++;
      throw new TypeError("bug");
    });
    const invoke = setup();
    const returned = invoke("plain");
    const thrown = invoke("idem");
    await Promise.all([returned.settled, thrown.settled]);
    expect(calls).toBe(2);
    expect(returned.state.value).toMatchObject({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      metadata: { attempts: 1 },
    });
    expect(thrown.state.error).toBeInstanceOf(TypeError);
  });

  it("asks the isTransient option which thrown errors to retry", async () => {
    let calls = 0;
    handle("idem", () => {
      calls++;
      throw new Error(calls < 2 ? "deadlock" : "other");
    });
    const call = setup({ isTransient: (e) => e instanceof Error && e.message === "deadlock" })("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(calls).toBe(2);
    expect((call.state.error as Error).message).toBe("other");
  });

  it("waits a longer retry-after from the error", async () => {
    const attempts: number[] = [];
    handle("idem", (ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt === 1) throw Object.assign(new Error("slow down"), { status: 429, retryAfterMs: 2_000 });
      return "ok";
    });
    const call = setup()("idem");
    await vi.advanceTimersByTimeAsync(1_999);
    expect(attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(call.state.value).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
  });

  it("reports the failure at once when a retry-after outlasts the total timeout", async () => {
    let calls = 0;
    handle("plain", () => {
      calls++;
      return ToolResult.fail("Rate limited", {
        code: "RATE_LIMITED",
        transient: true,
        data: { retryAfterMs: 600_000 },
      });
    });
    const call = setup()("plain");
    await call.settled;
    expect(calls).toBe(1);
    expect(call.state.value).toMatchObject({ status: "error", errorCode: "RATE_LIMITED", metadata: { attempts: 1 } });
  });

  it("with retry off, runs every tool once", async () => {
    let calls = 0;
    handle("plain", () => {
      calls++;
      return ToolResult.fail("Locked", { transient: true });
    });
    const call = setup({ retry: false })("plain");
    await call.settled;
    expect(calls).toBe(1);
  });
});

describe("resilience: timeouts", () => {
  it("an attempt timeout aborts ctx.signal with a TimeoutError, stops waiting and ends a non-idempotent call with OUTCOME_UNKNOWN", async () => {
    let signal: AbortSignal | undefined;
    let calls = 0;
    handle("plain", (ctx) => {
      calls++;
      signal = ctx.signal;
      return never(); // ignores its signal
    });
    const call = setup({ attemptTimeoutMs: 5_000 })("plain");
    await vi.advanceTimersByTimeAsync(4_999);
    expect(call.state.done).toBe(false);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(calls).toBe(1);
    expect(call.state.error).toBeInstanceOf(ToolError);
    expect(call.state.error).toMatchObject({ code: "OUTCOME_UNKNOWN", transient: false, toolName: "plain" });
    expect((call.state.error as ToolError).callId).toEqual(expect.any(String));
    const timeout = (call.state.error as ToolError).cause;
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(timeout).toMatchObject({ code: "TIMEOUT", toolName: "plain", timeoutMs: 5_000 });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(timeout);
  });

  it("retries a timed-out attempt of an idempotent tool, each attempt with a fresh signal", async () => {
    const signals: AbortSignal[] = [];
    handle("idem", (ctx) => {
      signals.push(ctx.signal);
      return ctx.attempt < 3 ? never() : "late but fine";
    });
    const call = setup({ attemptTimeoutMs: 1_000 })("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(call.state.value).toMatchObject({ status: "ok", data: "late but fine", metadata: { attempts: 3 } });
    expect(signals.map((s) => s.aborted)).toEqual([true, true, false]);
  });

  it("a tool's timeoutMs replaces the attempt timeout", async () => {
    handle("quick", () => never());
    const call = setup({ attemptTimeoutMs: 30_000, retry: false })("quick");
    await vi.advanceTimersByTimeAsync(999);
    expect(call.state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(call.state.error).toMatchObject({ code: "TIMEOUT", toolName: "quick", timeoutMs: 1_000 });
  });

  it("the total timeout bounds attempts and waits together", async () => {
    let calls = 0;
    handle("idem", () => {
      calls++;
      return never();
    });
    // Attempts at 0 and 1150 (1000 ms each, 150 ms wait); the second is cut short by the 2000 ms total.
    const call = setup({ retry: { maxAttempts: 10 }, attemptTimeoutMs: 1_000, totalTimeoutMs: 2_000 })("idem");
    await vi.advanceTimersByTimeAsync(1_999);
    expect(call.state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await call.settled;
    expect(calls).toBe(2);
    expect(call.state.error).toBeInstanceOf(TimeoutError);
    expect(call.state.error).toMatchObject({ timeoutMs: 2_000, message: expect.stringContaining("total timeout") });
  });

  it("does not start a wait that would outlast the total timeout", async () => {
    let calls = 0;
    handle("plain", () => {
      calls++;
      return ToolResult.fail("Busy", { transient: true });
    });
    const call = setup({
      retry: { baseDelayMs: 5_000, maxDelayMs: 5_000, jitter: 0 },
      attemptTimeoutMs: 1_000,
      totalTimeoutMs: 4_000,
    })("plain");
    await call.settled;
    expect(calls).toBe(1);
    expect(call.state.value).toMatchObject({ status: "error", metadata: { attempts: 1 } });
  });

  it("outside, the tool-result middleware shows an idempotent tool's timeout as retriable TIMEOUT", async () => {
    handle("idem", () => never());
    const call = setup({ retry: false, attemptTimeoutMs: 1_000 }, [toolResultMiddleware()])("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(call.state.value).toMatchObject({
      status: "timeout",
      errorCode: "TIMEOUT",
      retriable: true,
      metadata: { attempts: 1 },
    });
  });

  it("outside, the tool-result middleware shows a non-idempotent tool's timeout as OUTCOME_UNKNOWN, not retriable", async () => {
    handle("plain", () => never());
    const call = setup({ attemptTimeoutMs: 1_000 }, [toolResultMiddleware()])("plain");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(call.state.value).toMatchObject({
      status: "error",
      errorCode: "OUTCOME_UNKNOWN",
      retriable: false,
      metadata: { attempts: 1 },
    });
  });
});
