import { type InvokeOptions, type ToolCallReport, ToolResult, TransientError } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { type HarnessTool, never, useResilienceHarness } from "../../test/support/resilience-harness.js";
import { createResiliencePlugin, resilienceEventsOf } from "./resilience.plugin.js";
import type { ResilienceOptions } from "./resilience.options.js";
import type { ToolCircuitEvent, ToolGiveUpEvent } from "./resilience-events.js";

// A test may leave a call pending (the bulkhead's occupant), so timers may still be held at its end.
const harness = useResilienceHarness({ allowHeldTimers: true });
const handle = harness.handle;

/** The harness invoker and its plugin; each call resolves with its outcome or the error it threw. */
function setup(options: ResilienceOptions = {}) {
  const invoke = harness.setup(options);
  return {
    plugin: invoke.plugin,
    invoke: (name: HarnessTool, invokeOptions?: InvokeOptions) =>
      invoke(name, invokeOptions).promise.catch((error: unknown) => error),
  };
}

describe("resilience events", () => {
  it("a retry reaches the call's own context (callId, runId, tool, attempt, delay, code); onGiveUp follows the last attempt", async () => {
    handle("idem", () => {
      throw new TransientError("blip");
    });
    const { plugin, invoke } = setup({ retry: { maxAttempts: 3, baseDelayMs: 100, jitter: 0 } });
    const retries: ToolCallReport[] = [];
    const giveUps: ToolGiveUpEvent[] = [];
    plugin.events.onGiveUp((event) => giveUps.push(event));
    const call = invoke("idem", { runId: "run-1", report: (event) => retries.push(event) });
    // Another call of the same plugin reports to its own context only: no plugin-wide retry emitter.
    const others: ToolCallReport[] = [];
    const other = invoke("idem", { runId: "run-2", report: (event) => others.push(event) });
    await vi.runAllTimersAsync();
    await call;
    await other;
    expect(others.map((e) => e.runId)).toEqual(["run-2", "run-2"]);
    expect(retries).toEqual([
      {
        type: "tool-retry",
        callId: expect.any(String),
        runId: "run-1",
        tool: "idem",
        attempt: 1,
        delayMs: 100,
        errorCode: "UNHANDLED_ERROR",
        errorType: "TransientError",
      },
      {
        type: "tool-retry",
        callId: retries[0]!.callId,
        runId: "run-1",
        tool: "idem",
        attempt: 2,
        delayMs: 200,
        errorCode: "UNHANDLED_ERROR",
        errorType: "TransientError",
      },
    ]);
    expect(giveUps).toContainEqual({
      callId: retries[0]!.callId,
      runId: "run-1",
      tool: "idem",
      attempts: 3,
      errorCode: "UNHANDLED_ERROR",
    });
  });

  it("a retry report names the code of a transient failed result; a report that throws changes nothing", async () => {
    let left = 1;
    handle("plain", () => (left-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : "ok"));
    const { invoke } = setup({ retry: { baseDelayMs: 0, maxDelayMs: 0 } });
    const codes: Array<string | undefined> = [];
    const result = invoke("plain", { report: (event) => codes.push(event.errorCode) });
    await vi.runAllTimersAsync();
    expect(await result).toMatchObject({ status: "ok" });
    expect(codes).toEqual(["LOCKED"]);
    left = 1;
    const broken = invoke("plain", {
      report: () => {
        throw new Error("broken listener");
      },
    });
    await vi.runAllTimersAsync();
    expect(await broken).toMatchObject({ status: "ok" });
  });

  it("the deprecated onRetry still tells every retry the plugin schedules, with no type field", async () => {
    handle("idem", () => {
      throw new TransientError("blip");
    });
    const { plugin, invoke } = setup({ retry: { maxAttempts: 2, baseDelayMs: 100, jitter: 0 } });
    const told: unknown[] = [];
    plugin.events.onRetry((event) => told.push(event));
    const call = invoke("idem", { runId: "run-9" });
    await vi.runAllTimersAsync();
    await call;
    expect(told).toEqual([
      {
        callId: expect.any(String),
        runId: "run-9",
        tool: "idem",
        attempt: 1,
        delayMs: 100,
        errorCode: "UNHANDLED_ERROR",
        errorType: "TransientError",
      },
    ]);
  });

  it("onGiveUp also follows a transient failed result that ran out of attempts", async () => {
    handle("plain", () => ToolResult.fail("locked", { code: "LOCKED", transient: true }));
    const { plugin, invoke } = setup({ retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } });
    const giveUps: ToolGiveUpEvent[] = [];
    plugin.events.onGiveUp((event) => giveUps.push(event));
    await invoke("plain");
    expect(giveUps).toEqual([
      { callId: expect.any(String), runId: expect.any(String), tool: "plain", attempts: 2, errorCode: "LOCKED" },
    ]);
  });

  it("onBreak, onHalfOpen and onReset follow a tool's circuit", async () => {
    let fail = true;
    handle("plain", () => {
      if (fail) throw new Error("down");
      return "up";
    });
    const { plugin, invoke } = setup({
      retry: false,
      circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 1_000 },
    });
    const seen: string[] = [];
    const record = (kind: string) => (event: ToolCircuitEvent) => seen.push(`${kind}:${event.tool}`);
    plugin.events.onBreak(record("break"));
    plugin.events.onHalfOpen(record("half-open"));
    plugin.events.onReset(record("reset"));
    await invoke("plain");
    await invoke("plain");
    expect(seen).toEqual(["break:plain"]);
    await vi.advanceTimersByTimeAsync(1_000);
    fail = false;
    expect(await invoke("plain")).toMatchObject({ status: "ok" });
    expect(seen).toEqual(["break:plain", "half-open:plain", "reset:plain"]);
  });

  it("onBulkheadReject names the call turned away", async () => {
    handle("plain", () => never());
    const { plugin, invoke } = setup({ bulkhead: { limit: 1, queue: 0 } });
    const rejected: string[] = [];
    plugin.events.onBulkheadReject((event) => rejected.push(`${event.tool}@${event.runId}`));
    void invoke("plain", { runId: "a" });
    const second = await invoke("plain", { runId: "b" });
    expect(second).toMatchObject({ code: "CAPACITY_EXCEEDED" });
    expect(rejected).toEqual(["plain@b"]);
  });

  it("resilienceEventsOf finds the events of every resilience plugin of a composition", () => {
    const plugin = createResiliencePlugin();
    expect(resilienceEventsOf([{ name: "other" }, plugin])).toEqual([plugin.events]);
  });
});
