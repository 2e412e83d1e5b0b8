import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  formatToolOutcome,
  type ToolContext,
  type ToolMiddleware,
  TransientError,
} from "@needlework/core";
import * as testing from "@needlework/workflows/testing";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { z } from "zod";
import { usingAgentFramework } from "../builder/index.js";
import type { ResilienceOptions } from "../resilience/index.js";
import { toolResultMiddleware } from "../tool-result/index.js";
import { chaos, type ChaosEvent, type ChaosOptions, chaosPlugin, seededRandom } from "./chaos.js";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";

const bodies: { tool: string; attempt: number }[] = [];

@AgentFunctionGroup()
class ChaosTools {
  @AgentFunction({ description: "Reads a value.", input: z.object({ id: z.string() }), idempotent: true })
  read(args: { id: string }, ctx: ToolContext) {
    bodies.push({ tool: "read", attempt: ctx.attempt });
    return { id: args.id };
  }

  @AgentFunction({ description: "Writes a value.", input: z.object({ id: z.string() }) })
  write(args: { id: string }, ctx: ToolContext) {
    bodies.push({ tool: "write", attempt: ctx.attempt });
    return { written: args.id };
  }
}

/** An invoker over the chaos tools with `middleware` (first outermost). */
function invokerWith(...middleware: ToolMiddleware[]) {
  return createToolInvoker(container.createChildContainer(), { functions: [ChaosTools], middleware });
}

/** The builder's stack: chaos innermost, then resilience, then the tool-result middleware outermost. */
function stackWith(resilience: ResilienceOptions, faults: ChaosOptions) {
  return usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(ChaosTools)
    .usingPlugin(chaosPlugin(faults))
    .usingResilience(resilience)
    .usingToolResultMiddleware()
    .buildAgentFactory().tools;
}

/**
 * What chaos throws on one call, built as a user would (the builder, chaos innermost, no retry), and
 * caught by the user's own middleware outside it.
 */
async function thrownThrough(faults: ChaosOptions): Promise<unknown> {
  let thrown: unknown;
  const catcher: ToolMiddleware = async (_call, next) => {
    try {
      return await next();
    } catch (error) {
      thrown = error;
      throw error;
    }
  };
  await usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(ChaosTools)
    .usingPlugin(chaosPlugin(faults))
    .usingMiddleware(catcher)
    .buildAgentFactory({ printDiagnostics: false })
    .tools.invoke({ name: "read", arguments: { id: "a" }, callId: "c" })
    .catch(() => undefined);
  expect(bodies).toEqual([]);
  return thrown;
}

/** A random source playing `values` in a loop. */
const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

beforeEach(() => {
  bodies.length = 0;
  useFakeTimers();
});
afterEach(() => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
});

describe("chaos", () => {
  it("pins its defaults: inject before, Math.random, enabled, an Error and a TransientError", async () => {
    const spy = vi.spyOn(Math, "random").mockReturnValue(0);
    const thrown = await thrownThrough({ rate: 0.5, faults: { exception: true } });
    expect(spy).toHaveBeenCalled();
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe("chaos: injected exception");
    const error = await thrownThrough({ rate: 1, faults: { transient: true } });
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).code).toBe("CHAOS_TRANSIENT");
    expect(chaosPlugin({ rate: 0.2, faults: { latency: { ms: 5 }, exception: true } }).describe!()).toBe(
      "chaos(rate 0.2, faults: latency 5ms, exception, inject before)",
    );
  });

  it("injects at the configured rate with a seeded source, and the same seed repeats the same faults", async () => {
    const run = async (seed: number) => {
      const events: ChaosEvent[] = [];
      const middleware = chaos({
        rate: 0.2,
        faults: { exception: true, transient: true, result: () => "bad" },
        random: seededRandom(seed),
        onFault: (e) => events.push(e),
      });
      const invoker = invokerWith(toolResultMiddleware(), middleware);
      for (let i = 0; i < 5_000; i++)
        await invoker.invoke({ name: "read", arguments: { id: String(i) }, callId: `c${i}` });
      return { events, stats: middleware.stats };
    };
    const first = await run(7);
    expect(first.stats.calls).toBe(5_000);
    expect(first.stats.injected / 5_000).toBeGreaterThan(0.18);
    expect(first.stats.injected / 5_000).toBeLessThan(0.22);
    for (const kind of ["exception", "transient", "result"] as const)
      expect(first.stats.byKind[kind] / first.stats.injected).toBeGreaterThan(0.28);
    expect(first.stats.byKind.latency).toBe(0);
    expect(first.events).toHaveLength(first.stats.injected);
    expect(bodies).toHaveLength(5_000 - first.stats.injected);
    expect((await run(7)).events).toEqual(first.events);
  });

  it("rate 0 never injects and rate 1 always does; enabled: false or a predicate turns it off", async () => {
    const never = chaos({ rate: 0, faults: { exception: true } });
    const always = chaos({ rate: 1, faults: { result: () => "injected" } });
    const off = chaos({ rate: 1, faults: { exception: true }, enabled: false });
    const onlyWrites = chaos({
      rate: 1,
      faults: { result: () => "injected" },
      enabled: (call) => call.name === "write",
    });
    for (let i = 0; i < 50; i++) {
      expect((await invokerWith(never).invoke({ name: "read", arguments: { id: "a" } })).data).toEqual({ id: "a" });
      expect((await invokerWith(always).invoke({ name: "read", arguments: { id: "a" } })).data).toBe("injected");
    }
    expect((await invokerWith(off).invoke({ name: "read", arguments: { id: "a" } })).data).toEqual({ id: "a" });
    expect((await invokerWith(onlyWrites).invoke({ name: "read", arguments: { id: "a" } })).data).toEqual({ id: "a" });
    expect((await invokerWith(onlyWrites).invoke({ name: "write", arguments: { id: "a" } })).data).toBe("injected");
    expect(never.stats).toEqual({
      calls: 50,
      injected: 0,
      byKind: { latency: 0, exception: 0, transient: 0, result: 0 },
    });
    expect(always.stats.injected).toBe(50);
  });

  it("before: a fault replaces the tool body; after: the body runs, then the fault replaces its value", async () => {
    const before = invokerWith(
      toolResultMiddleware(),
      chaos({ rate: 1, faults: { exception: () => new RangeError("boom") } }),
    );
    const outcome = await before.invoke({ name: "write", arguments: { id: "a" } });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (RangeError). The call was not retried.",
    });
    expect(bodies).toEqual([]);
    const after = invokerWith(
      toolResultMiddleware(),
      chaos({ rate: 1, faults: { exception: () => new RangeError("boom") }, inject: "after" }),
    );
    expect((await after.invoke({ name: "write", arguments: { id: "a" } })).status).toBe("error");
    expect(bodies).toEqual([{ tool: "write", attempt: 1 }]);
  });

  it("latency delays the call by ms (or a draw up to maxMs), then lets it through", async () => {
    const invoker = invokerWith(
      chaos({ rate: 1, faults: { latency: { ms: 100, maxMs: 300 } }, random: sequence(0.5) }),
    );
    let done = false;
    const pending = invoker.invoke({ name: "read", arguments: { id: "a" } }).then((o) => ((done = true), o));
    await vi.advanceTimersByTimeAsync(199);
    expect(done).toBe(false);
    expect(bodies).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).data).toEqual({ id: "a" });
    expect(done).toBe(true);
  });

  it("latency ends at once with an AbortError when the caller aborts, leaving no timer or listener", async () => {
    const controller = new AbortController();
    const invoker = invokerWith(toolResultMiddleware(), chaos({ rate: 1, faults: { latency: { ms: 60_000 } } }));
    const pending = invoker
      .invoke({ name: "write", arguments: { id: "a" } }, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    expect(heldTimers()).toBe(1);
    controller.abort();
    const error = await pending;
    expect((error as Error).name).toBe("AbortError");
    expect(bodies).toEqual([]);
  });

  it("inside resilience, an attempt timeout cuts injected latency short and the idempotent tool is retried", async () => {
    // First draw: hit (0 < 0.5); latency only. Second attempt: miss (0.9).
    const invoker = stackWith(
      { retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10, jitter: 0 }, attemptTimeoutMs: 1_000 },
      { rate: 0.5, faults: { latency: { ms: 5_000 } }, random: sequence(0, 0.9) },
    );
    const pending = invoker.invoke({ name: "read", arguments: { id: "a" } });
    await vi.advanceTimersByTimeAsync(1_010);
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: "ok", data: { id: "a" }, metadata: { attempts: 2 } });
    expect(bodies).toEqual([{ tool: "read", attempt: 2 }]);
  });

  it("a thrown transient fault is retried only for idempotent tools; a transient result for any tool", async () => {
    const resilience: ResilienceOptions = { retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } };
    const thrown = (tool: string) =>
      stackWith(resilience, { rate: 0.5, faults: { transient: true }, random: sequence(0, 0.9) }).invoke({
        name: tool,
        arguments: { id: "a" },
      });
    expect(await thrown("read")).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    expect(await thrown("write")).toMatchObject({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      retriable: true,
      metadata: { attempts: 1 },
    });
    const result = stackWith(resilience, {
      rate: 0.5,
      faults: { transient: { as: "result" } },
      random: sequence(0, 0.9),
    });
    expect(await result.invoke({ name: "write", arguments: { id: "a" } })).toMatchObject({
      status: "ok",
      data: { written: "a" },
      metadata: { attempts: 2 },
    });
    const always = stackWith(resilience, { rate: 1, faults: { transient: { as: "result" } } });
    expect(await always.invoke({ name: "write", arguments: { id: "a" } })).toMatchObject({
      status: "error",
      errorCode: "CHAOS_TRANSIENT",
      retriable: true,
      metadata: { attempts: 3 },
    });
    const http = invokerWith(
      toolResultMiddleware(),
      chaos({
        rate: 1,
        faults: { transient: { error: () => Object.assign(new Error("Service Unavailable"), { status: 503 }) } },
      }),
    );
    expect(await http.invoke({ name: "read", arguments: { id: "a" } })).toMatchObject({
      status: "error",
      errorCode: "UPSTREAM_UNAVAILABLE",
    });
  });

  it("the default bad results all end as outcomes the model can read as JSON", async () => {
    // Each draw below 0.999 first hits, then picks the result at index floor(r * 10).
    for (let index = 0; index < 10; index++) {
      const invoker = invokerWith(
        toolResultMiddleware(),
        chaos({ rate: 0.999, faults: { result: true }, random: sequence(0, (index + 0.5) / 10) }),
      );
      const outcome = await invoker.invoke({ name: "read", arguments: { id: "a" } });
      const text = formatToolOutcome(outcome);
      expect(() => JSON.parse(text)).not.toThrow();
      expect(JSON.parse(text)).toMatchObject({ status: "ok", retriable: false });
    }
    expect(bodies).toEqual([]);
  });

  it("as a plugin it sits innermost when registered first, and shares its stats", async () => {
    const plugin = chaosPlugin({ rate: 1, faults: { transient: true } });
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(ChaosTools)
      .usingPlugin(plugin)
      .usingResilience({ retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } })
      .usingToolResultMiddleware()
      .buildAgentFactory();
    expect(factory.pipeline.map((s) => s.name)).toEqual([
      "tool-result",
      "resilience",
      "chaos",
      "tool-middleware",
      "tool",
    ]);
    const outcome = await factory.tools.invoke({ name: "read", arguments: { id: "a" } });
    expect(outcome).toMatchObject({ status: "error", retriable: true, metadata: { attempts: 2 } });
    expect(plugin.stats).toMatchObject({ calls: 2, injected: 2, byKind: { transient: 2 } });
  });

  it("is exported from @needlework/workflows/testing", () => {
    expect(testing.chaos).toBe(chaos);
    expect(testing.chaosPlugin).toBe(chaosPlugin);
    expect(testing.seededRandom).toBe(seededRandom);
  });

  it("seededRandom repeats per seed and stays in [0, 1)", () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    const c = seededRandom(2);
    const drawn = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(drawn);
    expect(c()).not.toBe(drawn[0]);
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = drawn.reduce((s, x) => s + x, 0) / drawn.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
  });

  it("a random source outside [0, 1) is clamped rather than trusted", async () => {
    const middleware = chaos({ rate: 0.5, faults: { exception: true, result: () => "r" }, random: sequence(-1, 7) });
    // -1 clamps to 0 (a hit), 7 to just under 1 (the last kind).
    expect((await invokerWith(middleware).invoke({ name: "read", arguments: { id: "a" } })).data).toBe("r");
  });

  it("rejects options that cannot work, naming the option", () => {
    // [options, the option named, what the message says]
    const bad: [unknown, string, RegExp][] = [
      [
        { rate: 1.5, faults: { exception: true } },
        "rate",
        /'rate' must be a number from 0 \(never\) to 1 .*\(got 1\.5\)/,
      ],
      [{ rate: Number.NaN, faults: { exception: true } }, "rate", /'rate' must be a number from 0/],
      [{ faults: { exception: true } }, "rate", /'rate' must be .*\(got undefined\)/],
      [{ rate: 0.1, faults: {} }, "faults", /'faults' must configure at least one fault/],
      [
        { rate: 0.1, faults: { explode: true } },
        "faults.explode",
        /unknown option 'faults\.explode'\. Known options: latency, /,
      ],
      [{ rate: 0.1, faults: { latency: { ms: -1 } } }, "faults.latency.ms", /must be a number of milliseconds from 0/],
      [
        { rate: 0.1, faults: { latency: { ms: 10, maxMs: 5 } } },
        "faults.latency.maxMs",
        /'faults\.latency\.maxMs' must not be below faults\.latency\.ms \(10\) \(got 5\)/,
      ],
      [{ rate: 0.1, faults: { exception: "boom" } }, "faults.exception", /must be true or a function \(got "boom"\)/],
      [{ rate: 0.1, faults: { transient: { as: "sometimes" } } }, "faults.transient.as", /must be "throw" or "result"/],
      [{ rate: 0.1, faults: { transient: { error: 1 } } }, "faults.transient.error", /must be a function returning/],
      [{ rate: 0.1, faults: { result: true }, random: 0.5 }, "random", /'random' must be a function/],
      [{ rate: 0.1, faults: { result: true }, enabled: "yes" }, "enabled", /must be a boolean or a function \(call\)/],
      [{ rate: 0.1, faults: { result: true }, inject: "during" }, "inject", /'inject' must be "before" or "after"/],
      [{ rate: 0.1, faults: { result: true }, onFault: {} }, "onFault", /'onFault' must be a function/],
      [{ rate: 0.1, faults: { result: true }, seed: 7 }, "seed", /unknown option 'seed'/],
    ];
    for (const [options, option, message] of bad) {
      const error = invalidOption(() => chaos(options as ChaosOptions));
      expect(error).toMatchObject({ code: "INVALID_OPTION", option });
      expect(error.message).toMatch(/^chaos: /);
      expect(error.message).toMatch(message);
    }
  });
});
