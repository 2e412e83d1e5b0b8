import { ToolResult } from "@needlework/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError, untilAborted } from "../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../test/diagnostics-fixtures.js";
import type { DiagnosticRecord } from "./diagnostic-record.js";
import { diagnosticsPlugin } from "./diagnostics.plugin.js";
import { UNKNOWN_TOOL_BUCKET } from "./tool-metrics.js";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";

const T0 = 1_700_000_000_000;
const LEAK = "HTTP 403 for jane.doe@example.com: tenant 77 denied";

afterEach(() => {
  vi.useRealTimers();
});

describe("usingDiagnostics: records and counters", () => {
  it("records every call, counts envelopes as failures (unlike Needlr), and keeps the exception out of the model's view", async () => {
    const { world, factory } = diagnosticsHarness((b) =>
      b
        .usingResilience(RETRY_AT_ONCE)
        .usingToolResultMiddleware()
        .usingRedaction()
        .usingDiagnostics({ clock: () => T0 }),
    );
    let lockedTwice = 2;
    world.on("postNote", () =>
      lockedTwice-- > 0
        ? ToolResult.fail("Note store is locked", { code: "LOCKED", transient: true })
        : { posted: true },
    );
    world.on("updateContact", ({ contactId }) => {
      if (contactId === "c2") throw new HttpError(403, LEAK);
      return { updated: contactId };
    });
    const { tools } = factory;
    await tools.invoke({ name: "updateContact", arguments: { contactId: "c1" }, callId: "call_a" }, { runId: "run_1" });
    const denied = await tools.invoke(
      { name: "updateContact", arguments: { contactId: "c2" }, callId: "call_b" },
      { runId: "run_1" },
    );
    await tools.invoke({ name: "postNote", arguments: { note: "hi" }, callId: "call_c" }, { runId: "run_1" });
    await tools.invoke({ name: "updateContac", arguments: {}, callId: "call_d" }, { runId: "run_1" });
    await tools.invoke({ name: "postNote", arguments: {}, callId: "call_e" }, { runId: "run_1" });

    expect(denied).toMatchObject({ status: "error", errorCode: "FORBIDDEN" });
    const records = factory.metrics!.records();
    expect(records.map((r) => [r.callId, r.tool, r.status, r.errorCode ?? null, r.attempts])).toEqual([
      ["call_a", "updateContact", "ok", null, 1],
      ["call_b", "updateContact", "error", "FORBIDDEN", 1],
      ["call_c", "postNote", "ok", null, 3],
      ["call_d", "updateContac", "error", "UNKNOWN_TOOL", 0],
      ["call_e", "postNote", "error", "INVALID_ARGUMENTS", 0],
    ]);
    const failure = records[1]!;
    expect(failure).toMatchObject({
      time: T0,
      runId: "run_1",
      retriable: false,
      thrown: false,
      error: { type: "HttpError" },
    });
    expect(failure.latencyMs).toBeGreaterThanOrEqual(0);
    // The exception is kept for logs (not enumerable) and its text is redacted in the summary.
    expect(failure.exception).toBeInstanceOf(HttpError);
    expect(Object.keys(failure)).not.toContain("exception");
    expect(failure.error!.message).toContain("[REDACTED:email]");
    expect(JSON.stringify(records)).not.toContain("jane.doe@example.com");
    expect(factory.formatOutcome(denied)).not.toContain("tenant 77");
    expect(Object.isFrozen(failure)).toBe(true);

    expect(factory.metrics!.tool("updateContact")).toMatchObject({
      calls: 2,
      ok: 1,
      failures: 1,
      failuresByCode: { FORBIDDEN: 1 },
      retries: 0,
    });
    expect(factory.metrics!.tool("postNote")).toMatchObject({
      calls: 2,
      ok: 1,
      failures: 1,
      failuresByCode: { INVALID_ARGUMENTS: 1 },
      retries: 2,
    });
    expect(factory.metrics!.tool(UNKNOWN_TOOL_BUCKET)).toMatchObject({
      calls: 1,
      failures: 1,
      failuresByCode: { UNKNOWN_TOOL: 1 },
    });
    expect(factory.metrics!.tools().map((t) => t.tool)).toEqual([UNKNOWN_TOOL_BUCKET, "postNote", "updateContact"]);
    const latency = factory.metrics!.tool("updateContact")!.latencyMs;
    expect(latency.samples).toBe(2);
    expect(latency.p50).toBeLessThanOrEqual(latency.p90);
    expect(latency.p99).toBeLessThanOrEqual(latency.max);
    // Calls that never ran are not latency samples.
    expect(factory.metrics!.tool("postNote")!.latencyMs.samples).toBe(1);
  });

  it("without the tool-result middleware, records a thrown exception as a failure and rethrows it", async () => {
    const { world, factory } = diagnosticsHarness((b) => b.usingDiagnostics());
    const error = new HttpError(429, "slow down");
    world.on("updateContact", () => {
      throw error;
    });
    await expect(factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } })).rejects.toBe(error);
    const [record] = factory.metrics!.records();
    expect(record).toMatchObject({
      tool: "updateContact",
      status: "error",
      errorCode: "RATE_LIMITED",
      retriable: true,
      thrown: true,
      attempts: 1,
      error: { type: "HttpError", message: "slow down" },
    });
    expect(record!.exception).toBe(error);
    expect(factory.metrics!.tool("updateContact")).toMatchObject({
      calls: 1,
      failures: 1,
      failuresByCode: { RATE_LIMITED: 1 },
    });
  });

  it("records a cancelled call as cancelled, not as a failure", async () => {
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics());
    world.on("updateContact", (_args, ctx) => untilAborted(ctx.signal));
    const controller = new AbortController();
    const pending = factory.tools.invoke(
      { name: "updateContact", arguments: { contactId: "c1" } },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(factory.metrics!.records()).toEqual([
      expect.objectContaining({ status: "cancelled", errorCode: "CANCELLED", thrown: true }),
    ]);
    expect(factory.metrics!.tool("updateContact")).toMatchObject({ calls: 1, cancelled: 1, failures: 0 });
  });

  it("registered inside the tool-result middleware, still counts a thrown exception once", async () => {
    const { world, factory } = diagnosticsHarness((b) => b.usingDiagnostics().usingToolResultMiddleware());
    world.on("updateContact", () => {
      throw new TypeError("boom");
    });
    const outcome = await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } });
    expect(outcome).toMatchObject({ status: "error", errorCode: "UNHANDLED_ERROR" });
    expect(factory.metrics!.records()).toHaveLength(1);
    expect(factory.metrics!.tool("updateContact")).toMatchObject({
      calls: 1,
      failures: 1,
      failuresByCode: { UNHANDLED_ERROR: 1 },
    });
  });

  it("counts timeouts and circuit opens per tool", async () => {
    useFakeTimers();
    const { world, factory } = diagnosticsHarness((b) =>
      b
        .usingResilience({
          retry: false,
          attemptTimeoutMs: 50,
          totalTimeoutMs: false,
          circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
        })
        .usingToolResultMiddleware()
        .usingDiagnostics(),
    );
    world.on("updateContact", (_args, ctx) => untilAborted(ctx.signal));
    for (let i = 0; i < 2; i++) {
      const pending = factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } });
      await vi.advanceTimersByTimeAsync(50);
      // updateContact is not idempotent: its timeout leaves the outcome unknown.
      expect(await pending).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
    }
    expect(await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } })).toMatchObject({
      errorCode: "CIRCUIT_OPEN",
    });
    expect(factory.metrics!.tool("updateContact")).toMatchObject({
      calls: 3,
      failures: 3,
      timeouts: 2,
      circuitOpens: 1,
      failuresByCode: { OUTCOME_UNKNOWN: 2, CIRCUIT_OPEN: 1 },
    });
    expect(heldTimers()).toBe(0);
  });

  it("passes each record to the sink; a sink that throws or rejects changes nothing", async () => {
    const seen: DiagnosticRecord[] = [];
    let calls = 0;
    const sink = (record: DiagnosticRecord): Promise<void> | void => {
      seen.push(record);
      calls++;
      if (calls === 1) throw new Error("sink down");
      return Promise.reject(new Error("sink still down"));
    };
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics({ sink }));
    const first = await factory.tools.invoke({ name: "postNote", arguments: { note: "a" } });
    const second = await factory.tools.invoke({ name: "postNote", arguments: { note: "b" } });
    expect([first.status, second.status]).toEqual(["ok", "ok"]);
    expect(seen).toEqual(factory.metrics!.records());
    expect(seen).toHaveLength(2);
  });

  it("exposes the metrics as factory.metrics and on the plugin; reset() clears them", async () => {
    const plugin = diagnosticsPlugin();
    const { factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    expect(factory.metrics).toBe(plugin.metrics);
    expect(factory.diagnostics).toBeInstanceOf(Array); // the build diagnostics keep their name
    await factory.tools.invoke({ name: "postNote", arguments: { note: "a" } });
    expect(plugin.metrics.recorded).toBe(1);
    plugin.metrics.reset();
    expect(plugin.metrics.records()).toEqual([]);
    expect(plugin.metrics.tools()).toEqual([]);
    expect(plugin.metrics.recorded).toBe(0);
    expect(factory.describePipeline().split("\n")[0]).toMatch(
      /^1\. diagnostics\(maxRecords 1000, 1024 latency samples per tool\) {2}\(outermost\)$/,
    );

    const { factory: plain } = diagnosticsHarness((b) => b.usingToolResultMiddleware());
    expect(plain.metrics).toBeUndefined();
  });

  it("counts at most 64 distinct codes per tool, the rest under OTHER", async () => {
    let n = 0;
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingDiagnostics());
    world.on("postNote", () => ToolResult.fail("nope", { code: `E_${n++}` }));
    for (let i = 0; i < 70; i++) await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } });
    const codes = factory.metrics!.tool("postNote")!.failuresByCode;
    expect(Object.keys(codes)).toHaveLength(65);
    expect(codes.OTHER).toBe(6);
  });
});
