import { abortReason, type ToolCallContext, ToolResult, TransientError } from "@needlework/core";
import { parseOptions } from "../options/parse-options.js";
import {
  BAD_RESULTS,
  type ChaosFaultKind,
  type ChaosMiddleware,
  type ChaosOptions,
  chaosOptionsSchema,
  type ChaosPlugin,
  type ChaosStats,
  KINDS,
} from "./chaos.options.js";

export type {
  ChaosEvent,
  ChaosFaultKind,
  ChaosFaults,
  ChaosLatencyFault,
  ChaosMiddleware,
  ChaosOptions,
  ChaosPlugin,
  ChaosStats,
  ChaosTransientFault,
} from "./chaos.options.js";

/** A draw from `random` clamped into [0, 1), so a faulty source cannot pick outside the lists. */
function unit(random: () => number): number {
  const r = random();
  return r >= 0 && r < 1 ? r : r >= 1 ? 1 - Number.EPSILON : 0;
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts; leaves no timer or listener. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The original name of {@link createChaos}, kept so existing code keeps working.
 *
 * @example
 * ```ts
 * const faults = chaos({ rate: 0.2, faults: { transient: true }, random: seededRandom(1) });
 * ```
 */
export function chaos(options: ChaosOptions): ChaosMiddleware {
  return createChaos(options);
}

/**
 * Fault injection for your own tests, like Polly's chaos strategies (Simmy): at `rate`, a call gets
 * one of the configured faults (latency, an exception, a transient failure, or a bad result)
 * instead of, or with `inject: "after"` on top of, the tool's own behaviour. Register it innermost
 * (`usingPlugin(chaosPlugin(...))` before `usingResilience()`), so that retries, timeouts and the
 * result middleware see the faults as they would see a real tool's. `random` makes runs repeatable.
 *
 * @example
 * ```ts
 * const faults = createChaos({ rate: 0.2, faults: { transient: true, latency: { ms: 100 } }, random: seededRandom(1) });
 * const invoker = createToolInvoker(container, { functions: [OrderTools], middleware: [createToolResultMiddleware(), faults] });
 * ```
 */
export function createChaos(options: ChaosOptions): ChaosMiddleware {
  parseOptions("chaos", chaosOptionsSchema, options);
  // The caller's own objects from here on, not the parsed copy: fault factories are called as
  // methods (`faults.exception()`), so their `this` stays what the caller wrote.
  const kinds = KINDS.filter((kind) => options.faults[kind] !== undefined);
  const { rate, faults, onFault } = options;
  const random = options.random ?? Math.random;
  const enabled = options.enabled ?? true;
  const after = options.inject === "after";
  const byKind: Record<ChaosFaultKind, number> = { latency: 0, exception: 0, transient: 0, result: 0 };
  const stats = { calls: 0, injected: 0, byKind };

  const latencyMs = (): number => {
    const { ms, maxMs } = faults.latency!;
    return maxMs === undefined || maxMs === ms ? ms : ms + unit(random) * (maxMs - ms);
  };

  /** Throws, or returns the injected value, for a failing kind. */
  const fail = (kind: Exclude<ChaosFaultKind, "latency">): unknown => {
    switch (kind) {
      case "exception":
        throw faults.exception === true ? new Error("chaos: injected exception") : faults.exception!();
      case "transient": {
        const transient = faults.transient === true ? {} : faults.transient!;
        if (transient.as === "result") {
          return ToolResult.fail("The service is temporarily unavailable (injected by chaos).", {
            code: "CHAOS_TRANSIENT",
            transient: true,
            suggestion: "Try again.",
          });
        }
        throw transient.error
          ? transient.error()
          : new TransientError("chaos: injected transient failure", { code: "CHAOS_TRANSIENT" });
      }
      case "result":
        return faults.result === true
          ? BAD_RESULTS[Math.floor(unit(random) * BAD_RESULTS.length)]!()
          : faults.result!();
    }
  };

  const middleware = async (
    call: ToolCallContext,
    next: (call?: ToolCallContext) => Promise<unknown>,
  ): Promise<unknown> => {
    stats.calls++;
    if (enabled === false || (typeof enabled === "function" && !enabled(call))) return next();
    if (rate < 1 && !(unit(random) < rate)) return next();
    const kind = kinds.length === 1 ? kinds[0]! : kinds[Math.floor(unit(random) * kinds.length)]!;
    stats.injected++;
    byKind[kind]++;
    onFault?.({ kind, tool: call.name, callId: call.callId, attempt: call.attempt });
    if (kind === "latency") {
      // Drawn before the tool runs, so a seeded source gives the same sequence in both modes.
      const ms = latencyMs();
      if (!after) {
        await sleep(ms, call.signal);
        return next();
      }
      const value = await next();
      await sleep(ms, call.signal);
      return value;
    }
    if (after) await next();
    return fail(kind);
  };
  return Object.assign(middleware, { stats: stats as ChaosStats });
}

/**
 * {@link chaos} as a plugin. Register it first, so it sits innermost, nearest the tool body:
 *
 * @example
 * ```ts
 * const faults = chaosPlugin({ rate: 0.2, faults: { exception: true, transient: true }, random: seededRandom(42) });
 * const factory = usingAgentFramework(container).addAgentFunctions(OrderTools)
 *   .usingPlugin(faults).usingResilience().usingToolResultMiddleware().buildAgentFactory();
 * // ... run the test, then: faults.stats.injected
 * ```
 */
export function chaosPlugin(options: ChaosOptions): ChaosPlugin {
  const middleware = createChaos(options);
  const latency = options.faults.latency;
  const kinds = KINDS.filter((kind) => options.faults[kind] !== undefined).map((kind) =>
    kind === "latency" && latency
      ? `latency ${latency.ms}${latency.maxMs === undefined ? "" : `-${latency.maxMs}`}ms`
      : kind,
  );
  const description = `chaos(rate ${options.rate}, faults: ${kinds.join(", ")}, inject ${options.inject ?? "before"})`;
  return {
    name: "chaos",
    stats: middleware.stats,
    describe: () => description,
    createMiddleware: () => middleware,
  };
}

/**
 * A small seeded random source (mulberry32) for repeatable chaos and jitter: the same seed gives
 * the same sequence of numbers in [0, 1).
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * usingAgentFramework(container).usingPlugin(chaosPlugin({ rate: 0.2, faults: { exception: true }, random })).usingResilience({ random });
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
