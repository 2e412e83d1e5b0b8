import { CircuitOpenError, ToolError, ToolResult, TransientError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { toolResultMiddleware } from "../tool-result/index.js";
import { countedController, useResilienceHarness } from "../../test/support/resilience-harness.js";

const { handle, calls, setup } = useResilienceHarness();

function deferred<T = unknown>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const fails = () => {
  throw new TypeError("bug");
};

describe("resilience: circuit breaker", () => {
  const breaker = { retry: false, circuitBreaker: { consecutiveFailures: 3, halfOpenAfterMs: 10_000 } } as const;

  it("opens after N consecutive failures, then answers CircuitOpenError without calling the tool", async () => {
    handle("plain", fails);
    const invoke = setup(breaker);
    for (let i = 0; i < 3; i++) expect((await invoke("plain").settled).error).toBeInstanceOf(TypeError);
    const open = await invoke("plain").settled;
    expect(open.error).toBeInstanceOf(CircuitOpenError);
    expect(open.error).toMatchObject({ code: "CIRCUIT_OPEN", toolName: "plain" });
    expect(calls("plain")).toBe(3);
  });

  it("half-opens after halfOpenAfterMs: a successful trial closes it, a failed one opens it again", async () => {
    handle("plain", fails);
    const invoke = setup(breaker);
    for (let i = 0; i < 3; i++) await invoke("plain").settled;
    vi.advanceTimersByTime(9_999);
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(1);
    expect((await invoke("plain").settled).error).toBeInstanceOf(TypeError); // the trial ran and failed
    expect(calls("plain")).toBe(4);
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(10_000);
    handle("plain", () => "recovered");
    expect((await invoke("plain").settled).value).toMatchObject({ status: "ok", data: "recovered" });
    handle("plain", fails);
    expect((await invoke("plain").settled).error).toBeInstanceOf(TypeError); // closed: counting from zero again
    expect((await invoke("plain").settled).error).toBeInstanceOf(TypeError);
    expect(calls("plain")).toBe(7);
  });

  it("a rate limit or a 404 never opens it: thrown by a client (axios's 429), a ToolError or a failed result", async () => {
    const rateLimited = [
      () => {
        throw Object.assign(new Error("Request failed with status code 429"), {
          isAxiosError: true,
          response: { status: 429, headers: { "retry-after": "1" } },
        });
      },
      () => {
        throw new ToolError("Slow down", { code: "RATE_LIMITED", transient: true });
      },
      () => ToolResult.fail("Slow down", { code: "RATE_LIMITED", transient: true }),
    ];
    let n = 0;
    handle("plain", () => rateLimited[n++ % rateLimited.length]!());
    const invoke = setup(breaker);
    for (let i = 0; i < 6; i++) expect((await invoke("plain").settled).error).not.toBeInstanceOf(CircuitOpenError);
    expect(calls("plain")).toBe(6);
    // Nor does a 404 the service answered (a bad record among parallel writes).
    handle("plain", () => {
      throw Object.assign(new Error("Request failed with status code 404"), { response: { status: 404 } });
    });
    for (let i = 0; i < 4; i++) expect((await invoke("plain").settled).error).not.toBeInstanceOf(CircuitOpenError);
    // A 503 still counts.
    handle("plain", () => ToolResult.fail("Down", { code: "UPSTREAM_UNAVAILABLE", transient: true }));
    for (let i = 0; i < 3; i++) await invoke("plain").settled;
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
  });

  it("keeps one breaker per tool", async () => {
    handle("plain", fails);
    handle("idem", () => "fine");
    const invoke = setup(breaker);
    for (let i = 0; i < 4; i++) await invoke("plain").settled;
    expect((await invoke("idem").settled).value).toMatchObject({ status: "ok" });
  });

  it("counts transient failed results; a non-transient answer resets the count; a deliberate ToolError does not count", async () => {
    const results = [
      ToolResult.fail("Busy", { transient: true }),
      ToolResult.fail("Not found", { code: "NOT_FOUND" }), // an answer: resets
      ToolResult.fail("Busy", { transient: true }),
      new ToolError("Invalid state", { code: "INVALID_STATE" }), // deliberate, not counted
      ToolResult.fail("Busy", { transient: true }),
    ];
    handle("plain", () => {
      const next = results.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    const invoke = setup({ ...breaker, circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 10_000 } });
    for (let i = 0; i < 4; i++) await invoke("plain").settled;
    expect((await invoke("plain").settled).value).toMatchObject({ status: "error", message: "Busy" }); // the second counted failure
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    expect(calls("plain")).toBe(5);
  });

  it("counts timeouts but not cancellations", async () => {
    const { controller, signal } = countedController();
    handle(
      "plain",
      (ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    );
    const invoke = setup({
      ...breaker,
      circuitBreaker: { consecutiveFailures: 1, halfOpenAfterMs: 10_000 },
      attemptTimeoutMs: 1_000,
    });
    const cancelled = invoke("plain", { signal });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect((await cancelled.settled).error).toMatchObject({ name: "AbortError" });
    const timedOut = invoke("plain");
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await timedOut.settled).error).toMatchObject({ code: "OUTCOME_UNKNOWN" }); // a timeout, counted
    expect((await invoke("plain").settled).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(10_000);
  });

  it("stops retrying when the circuit opens during a call", async () => {
    handle("idem", () => {
      throw new TransientError("down");
    });
    const call = setup({
      retry: { maxAttempts: 5 },
      circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 10_000 },
    })("idem");
    await vi.runAllTimersAsync();
    await call.settled;
    expect(calls("idem")).toBe(2);
    expect(call.state.error).toBeInstanceOf(CircuitOpenError);
  });

  it("outside, the tool-result middleware shows CIRCUIT_OPEN to the model", async () => {
    handle("plain", fails);
    const invoke = setup({ ...breaker, circuitBreaker: { consecutiveFailures: 1, halfOpenAfterMs: 10_000 } }, [
      toolResultMiddleware(),
    ]);
    await invoke("plain").settled;
    expect((await invoke("plain").settled).value).toMatchObject({
      status: "error",
      errorCode: "CIRCUIT_OPEN",
      retriable: true,
    });
  });
});

describe("resilience: bulkhead", () => {
  it("rejects a call beyond limit + queue with a transient CAPACITY_EXCEEDED ToolError, without calling the tool", async () => {
    const gate = deferred();
    handle("plain", () => gate.promise);
    const invoke = setup({ retry: false, bulkhead: { limit: 1 } });
    const first = invoke("plain");
    const second = await invoke("plain").settled;
    expect(second.error).toBeInstanceOf(ToolError);
    expect(second.error).toMatchObject({
      code: "CAPACITY_EXCEEDED",
      transient: true,
      message: "The tool is at capacity; try again shortly.",
      toolName: "plain",
    });
    expect(calls("plain")).toBe(1);
    gate.resolve("done");
    expect((await first.settled).value).toMatchObject({ status: "ok", data: "done" });
    handle("plain", () => "again");
    expect((await invoke("plain").settled).value).toMatchObject({ status: "ok", data: "again" });
  });

  it("queues up to `queue` calls and runs them as slots free up", async () => {
    const gate = deferred();
    const order: number[] = [];
    handle("plain", (ctx) => {
      order.push(order.length + 1);
      return order.length === 1 ? gate.promise : ctx.attempt;
    });
    const invoke = setup({ retry: false, bulkhead: { limit: 1, queue: 1 } });
    const first = invoke("plain");
    const queued = invoke("plain");
    const rejected = await invoke("plain").settled;
    expect(rejected.error).toMatchObject({ code: "CAPACITY_EXCEEDED" });
    expect(order).toEqual([1]);
    gate.resolve("first");
    await Promise.all([first.settled, queued.settled]);
    expect(order).toEqual([1, 2]);
    expect(queued.state.value).toMatchObject({ status: "ok" });
  });

  it("retries a capacity rejection for an idempotent tool", async () => {
    const gate = deferred();
    handle("idem", () => (calls("idem") === 1 ? gate.promise : "second"));
    const invoke = setup({ bulkhead: { limit: 1 } });
    const first = invoke("idem");
    const second = invoke("idem");
    await vi.advanceTimersByTimeAsync(100);
    gate.resolve("first");
    await vi.advanceTimersByTimeAsync(50); // the 150 ms backoff
    await Promise.all([first.settled, second.settled]);
    expect(second.state.value).toMatchObject({ status: "ok", data: "second", metadata: { attempts: 2 } });
  });

  it("a queued call ends at once on the caller's abort, and its tool never runs", async () => {
    const { controller, signal, listeners } = countedController();
    const gate = deferred();
    handle("plain", () => gate.promise);
    const invoke = setup({ retry: false, bulkhead: { limit: 1, queue: 1 } });
    const first = invoke("plain");
    const queued = invoke("plain", { signal });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    await queued.settled;
    expect(queued.state.error).toMatchObject({ name: "AbortError" });
    expect(listeners.size).toBe(0);
    gate.resolve("done");
    await first.settled;
    await vi.advanceTimersByTimeAsync(0);
    expect(calls("plain")).toBe(1);
  });

  it("a queued call is bounded by the total timeout", async () => {
    const gate = deferred();
    handle("plain", () => gate.promise);
    const invoke = setup({
      retry: false,
      attemptTimeoutMs: 60_000,
      totalTimeoutMs: 60_000,
      bulkhead: { limit: 1, queue: 1 },
    });
    const first = invoke("plain");
    const queued = invoke("plain");
    await vi.advanceTimersByTimeAsync(59_999);
    expect(queued.state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([first.settled, queued.settled]);
    expect(queued.state.error).toMatchObject({ code: "TIMEOUT", timeoutMs: 60_000 });
    expect(first.state.error).toMatchObject({ code: "OUTCOME_UNKNOWN" }); // its body was running
    gate.resolve("late");
    await vi.advanceTimersByTimeAsync(0);
    expect(calls("plain")).toBe(1);
  });

  it("outside, the tool-result middleware shows CAPACITY_EXCEEDED to the model", async () => {
    const gate = deferred();
    handle("plain", () => gate.promise);
    const invoke = setup({ retry: false, bulkhead: { limit: 1 } }, [toolResultMiddleware()]);
    const first = invoke("plain");
    expect((await invoke("plain").settled).value).toMatchObject({
      status: "error",
      errorCode: "CAPACITY_EXCEEDED",
      retriable: true,
      message: "The tool is at capacity; try again shortly.",
    });
    gate.resolve("done");
    await first.settled;
  });
});
