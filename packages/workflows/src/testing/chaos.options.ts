import type { ToolCallContext, ToolMiddleware } from "@needlework/core";
import { z } from "zod";
import { functionOption, requireOrder } from "@needlework/core/kit";
import type { SchemaMatches } from "../options/parse-options.js";
import type { AgentFrameworkPlugin } from "../plugin.js";

// The options and types of the chaos middleware (chaos.ts), and the schema that checks them.

/**
 * The kinds of fault {@link chaos} injects.
 *
 * @example
 * ```ts
 * const kinds: ChaosFaultKind[] = ["latency", "exception", "transient", "result"];
 * ```
 */
export type ChaosFaultKind = "latency" | "exception" | "transient" | "result";

/**
 * Injected latency: `ms`, or a uniform draw between `ms` and `maxMs`. The wait follows the call's
 * signal (an attempt timeout or the caller's abort ends it), then the call goes on normally.
 *
 * @example
 * ```ts
 * const slow: ChaosLatencyFault = { ms: 50, maxMs: 2_000 };
 * ```
 */
export interface ChaosLatencyFault {
  readonly ms: number;
  readonly maxMs?: number;
}

/**
 * An injected transient failure. `as: "throw"` (default) throws `error()` (default: a
 * `TransientError`), which resilience retries only for `idempotent` tools; `as: "result"` returns
 * `ToolResult.fail(..., { transient: true, code: "CHAOS_TRANSIENT" })`, which it retries for any tool.
 *
 * @example
 * ```ts
 * const http503: ChaosTransientFault = { error: () => Object.assign(new Error("Service Unavailable"), { status: 503 }) };
 * ```
 */
export interface ChaosTransientFault {
  readonly as?: "throw" | "result";
  readonly error?: () => unknown;
}

/**
 * The faults {@link chaos} may inject; a hit call gets one of the configured kinds, chosen evenly.
 * `true` selects a kind's default.
 *
 * @example
 * ```ts
 * const faults: ChaosFaults = {
 *   latency: { ms: 100, maxMs: 5_000 },
 *   exception: () => new TypeError("Cannot read properties of undefined"),
 *   transient: true,
 *   result: () => ({ items: null }),
 * };
 * ```
 */
export interface ChaosFaults {
  readonly latency?: ChaosLatencyFault;
  /** Throws what the function returns; `true` throws `new Error("chaos: injected exception")`. */
  readonly exception?: true | (() => unknown);
  readonly transient?: true | ChaosTransientFault;
  /**
   * Returns what the function returns instead of the tool's value; `true` returns one of a set of
   * awkward values (undefined, NaN, a cycle, a BigInt, a Map, a 200 KB string, 200 levels of
   * nesting, a throwing getter, a function, an invalid Date).
   */
  readonly result?: true | (() => unknown);
}

/**
 * One injected fault, as {@link ChaosOptions.onFault} hears of it.
 *
 * @example
 * ```ts
 * const seen: ChaosEvent[] = [];
 * chaos({ rate: 0.2, faults: { exception: true }, onFault: (e) => seen.push(e) });
 * ```
 */
export interface ChaosEvent {
  readonly kind: ChaosFaultKind;
  readonly tool: string;
  readonly callId: string;
  readonly attempt: number;
}

/**
 * Options of {@link chaos} and {@link chaosPlugin}.
 *
 * @example
 * ```ts
 * chaos({ rate: 0.2, faults: { transient: true, latency: { ms: 50 } }, random: seededRandom(7), enabled: (call) => call.name !== "audit" });
 * ```
 */
export interface ChaosOptions {
  /** The share of calls (attempts, when inside resilience) that get a fault, from 0 to 1. */
  readonly rate: number;
  /** What to inject; at least one kind. */
  readonly faults: ChaosFaults;
  /** The random source, returning a number in [0, 1). Default `Math.random`; use {@link seededRandom} for repeatable runs. */
  readonly random?: () => number;
  /** `false`, or a per-call predicate, turns injection off. Default `true`. */
  readonly enabled?: boolean | ((call: ToolCallContext) => boolean);
  /**
   * `before` (default): the fault replaces the tool body, which does not run (latency delays it).
   * `after`: the tool body runs first and the fault replaces its value: the "it worked, but the
   * caller saw a failure" case that must not make a non-idempotent tool run twice.
   */
  readonly inject?: "before" | "after";
  /** Told of every injected fault. */
  readonly onFault?: (event: ChaosEvent) => void;
}

/**
 * What a chaos middleware has done so far.
 *
 * @example
 * ```ts
 * const middleware = chaos({ rate: 0.2, faults: { exception: true } });
 * // ... run the test ...
 * expect(middleware.stats.injected).toBeGreaterThan(0);
 * ```
 */
export interface ChaosStats {
  /** Calls (attempts) that passed through. */
  readonly calls: number;
  /** Calls that got a fault. */
  readonly injected: number;
  readonly byKind: Readonly<Record<ChaosFaultKind, number>>;
}

/**
 * A chaos middleware: a {@link ToolMiddleware} with its {@link ChaosStats}.
 *
 * @example
 * ```ts
 * const middleware: ChaosMiddleware = chaos({ rate: 0.1, faults: { latency: { ms: 200 } } });
 * ```
 */
export interface ChaosMiddleware extends ToolMiddleware {
  readonly stats: ChaosStats;
}

/**
 * The plugin behind `usingPlugin(chaosPlugin(options))`, with the middleware's {@link ChaosStats}.
 *
 * @example
 * ```ts
 * const plugin: ChaosPlugin = chaosPlugin({ rate: 0.2, faults: { transient: true } });
 * ```
 */
export interface ChaosPlugin extends AgentFrameworkPlugin {
  readonly name: "chaos";
  readonly stats: ChaosStats;
}

export const KINDS: readonly ChaosFaultKind[] = ["latency", "exception", "transient", "result"];
/** setTimeout fires at once for longer delays (Node clamps them), so larger values are refused. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Awkward values a tool might return; each is created fresh, so tests may mutate what they get. */
export const BAD_RESULTS: readonly (() => unknown)[] = [
  () => undefined,
  () => Number.NaN,
  () => {
    const cycle: Record<string, unknown> = { id: "chaos" };
    cycle["self"] = cycle;
    return cycle;
  },
  () => ({ total: 2n ** 70n }),
  () => new Map<unknown, unknown>([[{ key: 1 }, new Set([1, 2])]]),
  () => "x".repeat(200_000),
  () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 200; i++) deep = { child: deep };
    return deep;
  },
  () => ({
    get broken(): never {
      throw new Error("chaos: getter failed");
    },
  }),
  () => () => "a function",
  () => new Date(Number.NaN),
];

const MS = `must be a number of milliseconds from 0 to ${MAX_TIMER_MS}`;
const milliseconds = z.number(MS).min(0, MS).max(MAX_TIMER_MS, MS);
const TRUE_OR_FUNCTION = "must be true or a function";
const trueOrFunction = z.union([z.literal(true), functionOption<() => unknown>(TRUE_OR_FUNCTION)], TRUE_OR_FUNCTION);
const RATE = "must be a number from 0 (never) to 1 (every call)";
const ENABLED = "must be a boolean or a function (call) => boolean";

const latencySchema = z.strictObject({ ms: milliseconds, maxMs: milliseconds.optional() }, "must be { ms, maxMs? }");
const transientSchema = z.strictObject({
  as: z.enum(["throw", "result"], 'must be "throw" or "result"').optional(),
  error: functionOption<() => unknown>("must be a function returning the value to throw").optional(),
});
const faultsSchema = z
  .strictObject(
    {
      latency: latencySchema.optional(),
      exception: trueOrFunction.optional(),
      transient: z
        .union([z.literal(true), transientSchema], 'must be true or { as?: "throw" | "result", error?: () => unknown }')
        .optional(),
      result: trueOrFunction.optional(),
    },
    "must be an object such as { exception: true, latency: { ms: 100 } }",
  )
  .refine(
    (faults) => KINDS.some((kind) => faults[kind] !== undefined),
    "must configure at least one fault (latency, exception, transient or result)",
  );

export const chaosOptionsSchema = z
  .strictObject(
    {
      rate: z.number(RATE).min(0, RATE).max(1, RATE),
      faults: faultsSchema,
      random: functionOption<() => number>("must be a function returning a number in [0, 1)").optional(),
      enabled: z.union([z.boolean(), functionOption<(call: ToolCallContext) => boolean>(ENABLED)], ENABLED).optional(),
      inject: z.enum(["before", "after"], 'must be "before" or "after"').optional(),
      onFault: functionOption<(event: ChaosEvent) => void>().optional(),
    },
    "must be { rate, faults: { latency?, exception?, transient?, result? } }",
  )
  .superRefine(({ faults: { latency } }, ctx) => {
    if (latency === undefined) return;
    const ms = { path: ["faults", "latency", "ms"], given: latency.ms, fallback: latency.ms };
    requireOrder(ctx, ms, { path: ["faults", "latency", "maxMs"], given: latency.maxMs, fallback: latency.ms });
  });

true satisfies SchemaMatches<typeof chaosOptionsSchema, ChaosOptions>;
true satisfies SchemaMatches<typeof faultsSchema, ChaosFaults>;
true satisfies SchemaMatches<typeof latencySchema, ChaosLatencyFault>;
true satisfies SchemaMatches<typeof transientSchema, ChaosTransientFault>;
