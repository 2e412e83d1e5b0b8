import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  type InvokeOptions,
  type ToolContext,
  ToolResult,
  TransientError,
} from "@needlework/core";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createResiliencePlugin, resilienceEventsOf } from "./resilience.plugin.js";
import type { ResilienceOptions } from "./resilience.options.js";
import type { ToolCircuitEvent, ToolGiveUpEvent, RetryEvent } from "./resilience-events.js";

type Handler = (ctx: ToolContext) => unknown;
const handlers = new Map<string, Handler>();

@AgentFunctionGroup()
class Tools {
  @AgentFunction({ description: "Idempotent.", input: z.object({}), idempotent: true })
  idem(_: object, ctx: ToolContext) {
    return handlers.get("idem")!(ctx);
  }

  @AgentFunction({ description: "Not idempotent.", input: z.object({}) })
  plain(_: object, ctx: ToolContext) {
    return handlers.get("plain")!(ctx);
  }
}

function setup(options: ResilienceOptions = {}) {
  const c = container.createChildContainer();
  const plugin = createResiliencePlugin({ random: () => 0.5, ...options });
  const middleware = plugin.createMiddleware!({ container: c, tools: [], plugins: [plugin], position: 0 })!;
  const invoker = createToolInvoker(c, { functions: [Tools], middleware: [middleware] });
  const invoke = (name: string, invokeOptions?: InvokeOptions) =>
    invoker.invoke({ name, arguments: {} }, invokeOptions).catch((error: unknown) => error);
  return { plugin, invoke };
}

const never = (): Promise<never> => new Promise<never>(() => {});

beforeEach(() => {
  vi.useFakeTimers();
  handlers.clear();
});
afterEach(() => vi.useRealTimers());

describe("resilience events", () => {
  it("onRetry carries callId, runId, tool, attempt, delay and error code; onGiveUp follows the last attempt", async () => {
    handlers.set("idem", () => {
      throw new TransientError("blip");
    });
    const { plugin, invoke } = setup({ retry: { maxAttempts: 3, baseDelayMs: 100, jitter: 0 } });
    const retries: RetryEvent[] = [];
    const giveUps: ToolGiveUpEvent[] = [];
    plugin.events.onRetry((event) => retries.push(event));
    plugin.events.onGiveUp((event) => giveUps.push(event));
    const call = invoke("idem", { runId: "run-1" });
    await vi.runAllTimersAsync();
    await call;
    expect(retries).toEqual([
      {
        callId: expect.any(String),
        runId: "run-1",
        tool: "idem",
        attempt: 1,
        delayMs: 100,
        errorCode: "UNHANDLED_ERROR",
        errorType: "TransientError",
      },
      {
        callId: retries[0]!.callId,
        runId: "run-1",
        tool: "idem",
        attempt: 2,
        delayMs: 200,
        errorCode: "UNHANDLED_ERROR",
        errorType: "TransientError",
      },
    ]);
    expect(giveUps).toEqual([
      { callId: retries[0]!.callId, runId: "run-1", tool: "idem", attempts: 3, errorCode: "UNHANDLED_ERROR" },
    ]);
  });

  it("onRetry names the code of a transient failed result; a listener that throws changes nothing", async () => {
    let left = 1;
    handlers.set("plain", () => (left-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : "ok"));
    const { plugin, invoke } = setup({ retry: { baseDelayMs: 0, maxDelayMs: 0 } });
    const codes: Array<string | undefined> = [];
    plugin.events.onRetry(() => {
      throw new Error("broken listener");
    });
    const subscription = plugin.events.onRetry((event) => codes.push(event.errorCode));
    const result = invoke("plain");
    await vi.runAllTimersAsync();
    expect(await result).toMatchObject({ status: "ok" });
    expect(codes).toEqual(["LOCKED"]);
    subscription.dispose();
    left = 1;
    const again = invoke("plain");
    await vi.runAllTimersAsync();
    await again;
    expect(codes).toEqual(["LOCKED"]);
  });

  it("onGiveUp also follows a transient failed result that ran out of attempts", async () => {
    handlers.set("plain", () => ToolResult.fail("locked", { code: "LOCKED", transient: true }));
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
    handlers.set("plain", () => {
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
    handlers.set("plain", () => never());
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
