import { type ToolMiddleware, TransientError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { heldTimers } from "../../test/support/fake-timers.js";
import { countedController, never, useResilienceHarness } from "../../test/support/resilience-harness.js";

const { handle, setup } = useResilienceHarness();

describe("resilience: cancellation", () => {
  it("a caller aborted while the tool body starts is answered at once, though the body ignores its signal", async () => {
    const { controller, signal } = countedController();
    handle("plain", () => {
      controller.abort(); // the abort lands while the body is starting, before any deadline is set
      return never();
    });
    const call = setup()("plain", { signal });
    await call.settled; // no timer advanced: answered without waiting for the 30 s attempt timeout
    expect(call.state.error).toMatchObject({ name: "AbortError" });
    expect(heldTimers()).toBe(0);
  });

  it("the caller's abort during a backoff wait rejects at once with an AbortError and leaves no timer or listener", async () => {
    const { controller, signal, listeners } = countedController();
    let calls = 0;
    handle("idem", () => {
      calls++;
      throw new TransientError("blip");
    });
    const call = setup({ retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 } })("idem", { signal });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    expect(heldTimers()).toBe(1); // the backoff wait
    expect(listeners.size).toBe(1);
    controller.abort();
    await call.settled; // no timer advanced: the wait ended at once
    expect(call.state.error).toMatchObject({ name: "AbortError" });
    expect(calls).toBe(1);
    expect(heldTimers()).toBe(0);
    expect(listeners.size).toBe(0);
  });

  it("the caller's abort during an attempt aborts ctx.signal with the caller's reason and is never retried", async () => {
    const { controller, signal, listeners } = countedController();
    let calls = 0;
    let seen: AbortSignal | undefined;
    handle("idem", (ctx) => {
      calls++;
      seen = ctx.signal;
      return new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
      );
    });
    const call = setup()("idem", { signal });
    await vi.advanceTimersByTimeAsync(10);
    const reason = new DOMException("user left", "AbortError");
    controller.abort(reason);
    await call.settled;
    expect(call.state.error).toBe(reason);
    expect(seen?.reason).toBe(reason);
    expect(calls).toBe(1);
    expect(listeners.size).toBe(0);
  });

  it("a tool that ignores its signal is waited for until its attempt timeout, then the call is cancelled, not timed out", async () => {
    const { controller, signal, listeners } = countedController();
    let calls = 0;
    handle("idem", () => {
      calls++;
      return never();
    });
    const call = setup({ attemptTimeoutMs: 1_000 })("idem", { signal });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await vi.advanceTimersByTimeAsync(990);
    await call.settled;
    expect(call.state.error).toMatchObject({ name: "AbortError" });
    expect(calls).toBe(1);
    expect(listeners.size).toBe(0);
  });

  it("leaves no listener on the caller's signal after a successful call, whether or not the tool read ctx.signal", async () => {
    const { signal, listeners } = countedController();
    handle("idem", (ctx) => (ctx.signal.aborted ? "aborted" : "ok"));
    handle("plain", () => "ok");
    const invoke = setup();
    const a = invoke("idem", { signal });
    const b = invoke("plain", { signal });
    await Promise.all([a.settled, b.settled]);
    expect(a.state.value).toMatchObject({ status: "ok", data: "ok" });
    expect(b.state.value).toMatchObject({ status: "ok", data: "ok" });
    expect(listeners.size).toBe(0);
  });

  it("an attempt's signal follows a signal set by an outer layer, and stops listening to it afterwards", async () => {
    const { controller, signal: outerSignal, listeners } = countedController();
    const outer: ToolMiddleware = (call, next) => {
      call.signal = outerSignal;
      return next();
    };
    let seen: AbortSignal | undefined;
    handle("plain", (ctx) => {
      seen = ctx.signal;
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
    });
    const call = setup({}, [outer])("plain");
    await vi.advanceTimersByTimeAsync(10);
    expect(listeners.size).toBe(1);
    controller.abort("sibling failed");
    await call.settled;
    expect(seen?.reason).toBe("sibling failed");
    expect(call.state.value).toMatchObject({ status: "ok", data: "stopped" });
    expect(listeners.size).toBe(0);
  });
});

describe("resilience: cost", () => {
  it("creates no AbortController and no abort listener unless the tool reads ctx.signal", async () => {
    const Original = globalThis.AbortController;
    let created = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        created++;
      }
    };
    try {
      const { signal, listeners } = countedController();
      created = 0;
      handle("plain", () => "ok");
      handle("idem", (ctx) => ctx.signal.aborted);
      const invoke = setup();
      await invoke("plain", { signal }).settled;
      expect(created).toBe(0);
      expect(listeners.size).toBe(0);
      await invoke("idem", { signal }).settled;
      expect(created).toBe(1);
    } finally {
      globalThis.AbortController = Original;
    }
  });

  it("sets no timer when both timeouts are off", async () => {
    let timers = -1;
    handle("plain", () => {
      timers = heldTimers();
      return "ok";
    });
    await setup({ attemptTimeoutMs: false, totalTimeoutMs: false })("plain").settled;
    expect(timers).toBe(0);
  });
});
