import { ToolResult } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { diagnosticsHarness } from "../../test/diagnostics-fixtures.js";
import { notifyRetry, type RetryEvent, setRetryListener } from "./retry-listener.js";

describe("retry listener", () => {
  it("is told each retry resilience schedules, with the failed attempt, the wait and the reason; the tool never sees it", async () => {
    const events: RetryEvent[] = [];
    const seenItems: string[][] = [];
    let locked = 2;
    const { world, factory } = diagnosticsHarness((b) =>
      b
        .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 }, attemptTimeoutMs: false, totalTimeoutMs: false, circuitBreaker: false })
        .usingMiddleware(async (call, next) => {
          setRetryListener(call, (event) => events.push(event));
          try {
            return await next();
          } finally {
            setRetryListener(call, undefined);
          }
        }),
    );
    world.on("postNote", (_args, ctx) => {
      seenItems.push([...ctx.items.keys()]);
      return locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : { posted: true };
    });
    await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } });
    expect(events.map((e) => [e.attempt, e.delayMs, (e.reason as { error: { code: string } }).error.code])).toEqual([
      [1, 0, "LOCKED"],
      [2, 0, "LOCKED"],
    ]);
    expect(seenItems).toEqual([[], [], []]);
  });

  it("costs nothing when unset, and a listener that throws is ignored", () => {
    const call = { items: new Map<string, unknown>() };
    expect(() => notifyRetry(call, { attempt: 1, delayMs: 5, reason: new Error("x") })).not.toThrow();
    setRetryListener(call, () => {
      throw new Error("broken listener");
    });
    expect(() => notifyRetry(call, { attempt: 1, delayMs: 5, reason: new Error("x") })).not.toThrow();
  });
});
