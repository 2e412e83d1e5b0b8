import { isTransientError } from "@needlework/core";
import { z } from "zod";
import { functionOption, integerAtLeast, requireOrder } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "../options/parse-options.js";

/**
 * Retry settings of {@link ResilienceOptions}. Delays grow exponentially from `baseDelayMs`, are
 * capped at `maxDelayMs` and randomized by `jitter`.
 *
 * @example
 * ```ts
 * usingResilience({ retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 2_000, jitter: 1 } });
 * ```
 */
export interface RetryOptions {
  /** Total attempts, the first included (an integer of at least 1). Default `3`. */
  readonly maxAttempts?: number;
  /** The delay before the first retry, before jitter. Default `200` ms. */
  readonly baseDelayMs?: number;
  /** No backoff delay exceeds this (a larger `retryAfterMs` from the error is still honored). Default `5000` ms. */
  readonly maxDelayMs?: number;
  /**
   * How much of each delay is random, from `0` (exact delays) to `1` ("full jitter": anywhere between
   * 0 and the delay). The delay is `d * (1 - jitter + jitter * random())`. Default `0.5`.
   */
  readonly jitter?: number;
}

/**
 * Circuit breaker settings of {@link ResilienceOptions}; one breaker per tool.
 *
 * @example
 * ```ts
 * usingResilience({ circuitBreaker: { consecutiveFailures: 3, halfOpenAfterMs: 10_000 } });
 * ```
 */
export interface CircuitBreakerOptions {
  /** Consecutive failed attempts of one tool that open its circuit. Default `5`. */
  readonly consecutiveFailures?: number;
  /** How long the circuit stays open before one trial call is let through. Default `30000` ms. */
  readonly halfOpenAfterMs?: number;
}

/**
 * Bulkhead settings of {@link ResilienceOptions}; one bulkhead per tool.
 *
 * @example
 * ```ts
 * usingResilience({ bulkhead: { limit: 4, queue: 8 } });
 * ```
 */
export interface BulkheadOptions {
  /** Attempts of one tool that may run at once. Default `10`. */
  readonly limit?: number;
  /** Attempts that may wait for a free slot; more are rejected with `CAPACITY_EXCEEDED`. Default `0`. */
  readonly queue?: number;
}

/**
 * Options of `usingResilience(options)` / {@link resiliencePlugin}. Every field is optional; see
 * {@link DEFAULT_RESILIENCE_OPTIONS} for the defaults. A tool's `@AgentFunction({ timeoutMs })`
 * replaces `attemptTimeoutMs` for that tool.
 *
 * @example
 * ```ts
 * usingAgentFramework(container)
 *   .addAgentFunctions(OrderTools)
 *   .usingResilience({ retry: { maxAttempts: 4 }, attemptTimeoutMs: 10_000, bulkhead: { limit: 8 } })
 *   .usingToolResultMiddleware();
 * ```
 */
export interface ResilienceOptions {
  /** Retry settings, or `false` for a single attempt. */
  readonly retry?: RetryOptions | false;
  /** Time limit of one attempt, or `false` for none. Default `30000` ms. */
  readonly attemptTimeoutMs?: number | false;
  /** Time limit of the whole call (attempts and waits between them), or `false` for none. Default `120000` ms. */
  readonly totalTimeoutMs?: number | false;
  /** Per-tool circuit breaker, or `false` for none. */
  readonly circuitBreaker?: CircuitBreakerOptions | false;
  /** Per-tool concurrency limit, or `false` for none (the default). */
  readonly bulkhead?: BulkheadOptions | false;
  /** Decides whether a thrown error may succeed on another attempt. Default: core's `isTransientError`. */
  readonly isTransient?: (error: unknown) => boolean;
  /** The random source for jitter, returning a number in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * The defaults of a bulkhead enabled with `bulkhead: {}` (the bulkhead itself is off by default):
 * 10 concurrent attempts per tool, none queued. Frozen.
 *
 * @example
 * ```ts
 * usingResilience({ bulkhead: { ...DEFAULT_BULKHEAD_OPTIONS, queue: 5 } });
 * ```
 */
export const DEFAULT_BULKHEAD_OPTIONS: Readonly<Required<BulkheadOptions>> = Object.freeze({ limit: 10, queue: 0 });

/**
 * The shape of {@link DEFAULT_RESILIENCE_OPTIONS}: every option filled in.
 *
 * @example
 * ```ts
 * const defaults: ResilienceDefaults = DEFAULT_RESILIENCE_OPTIONS;
 * console.log(defaults.retry.maxAttempts); // 3
 * ```
 */
export interface ResilienceDefaults {
  readonly retry: Readonly<Required<RetryOptions>>;
  readonly attemptTimeoutMs: number;
  readonly totalTimeoutMs: number;
  readonly circuitBreaker: Readonly<Required<CircuitBreakerOptions>>;
  readonly bulkhead: false;
  readonly isTransient: (error: unknown) => boolean;
  readonly random: () => number;
}

/**
 * The defaults of `usingResilience()`: bounded everywhere (3 attempts, 200-5000 ms backoff with half
 * jitter, 30 s per attempt, 2 min in total, a breaker opening after 5 consecutive failures for 30 s,
 * no bulkhead). Frozen.
 *
 * @example
 * ```ts
 * usingResilience({ retry: { ...DEFAULT_RESILIENCE_OPTIONS.retry, maxAttempts: 5 } });
 * ```
 */
export const DEFAULT_RESILIENCE_OPTIONS: ResilienceDefaults = Object.freeze({
  retry: Object.freeze({ maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5_000, jitter: 0.5 }),
  attemptTimeoutMs: 30_000,
  totalTimeoutMs: 120_000,
  circuitBreaker: Object.freeze({ consecutiveFailures: 5, halfOpenAfterMs: 30_000 }),
  bulkhead: false,
  isTransient: isTransientError,
  random: Math.random,
});

/** Options after validation and defaults; `undefined` means "off". @internal */
export interface ResolvedResilienceOptions {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: number;
  readonly attemptTimeoutMs: number | undefined;
  readonly totalTimeoutMs: number | undefined;
  readonly circuitBreaker: Readonly<Required<CircuitBreakerOptions>> | undefined;
  readonly bulkhead: Readonly<Required<BulkheadOptions>> | undefined;
  readonly isTransient: (error: unknown) => boolean;
  readonly random: () => number;
}

/** setTimeout fires at once for longer delays (Node clamps them to 1 ms), so larger values are refused. */
const MAX_TIMER_MS = 2_147_483_647;

function milliseconds(what: string, { above0 }: { above0: boolean }) {
  const message = `must be ${what}, ${above0 ? "above 0" : "0 or more"} and at most ${MAX_TIMER_MS}`;
  const ms = z.number(message).max(MAX_TIMER_MS, message);
  return above0 ? ms.positive(message) : ms.nonnegative(message);
}

const delayMs = milliseconds("a finite number of milliseconds", { above0: false });
const timeoutMs = z.union(
  [z.literal(false), milliseconds("false or a finite number of milliseconds", { above0: true })],
  `must be false or a finite number of milliseconds, above 0 and at most ${MAX_TIMER_MS}`,
);
const offOr = <S extends z.ZodType>(section: S) => z.union([z.literal(false), section], "must be an object or false");
const JITTER = "must be a number from 0 (no jitter) to 1 (full jitter)";

const retrySchema = z.strictObject({
  maxAttempts: integerAtLeast(1).optional(),
  baseDelayMs: delayMs.optional(),
  maxDelayMs: delayMs.optional(),
  jitter: z.number(JITTER).min(0, JITTER).max(1, JITTER).optional(),
});
const circuitBreakerSchema = z.strictObject({
  consecutiveFailures: integerAtLeast(1).optional(),
  halfOpenAfterMs: delayMs.optional(),
});
const bulkheadSchema = z.strictObject({ limit: integerAtLeast(1).optional(), queue: integerAtLeast(0).optional() });

/**
 * The schema of {@link ResilienceOptions}; `createAgent({ resilience })` nests it. Besides each
 * value, it checks that the backoff range and the timeouts fit together once defaults are applied.
 * @internal
 */
export const resilienceOptionsSchema = z
  .strictObject(
    {
      retry: offOr(retrySchema).optional(),
      attemptTimeoutMs: timeoutMs.optional(),
      totalTimeoutMs: timeoutMs.optional(),
      circuitBreaker: offOr(circuitBreakerSchema).optional(),
      bulkhead: offOr(bulkheadSchema).optional(),
      isTransient: functionOption<(error: unknown) => boolean>().optional(),
      random: functionOption<() => number>().optional(),
    },
    "must be an object",
  )
  .superRefine((o, ctx) => {
    const d = DEFAULT_RESILIENCE_OPTIONS;
    if (o.retry !== false) {
      requireOrder(
        ctx,
        { path: ["retry", "baseDelayMs"], given: o.retry?.baseDelayMs, fallback: d.retry.baseDelayMs },
        { path: ["retry", "maxDelayMs"], given: o.retry?.maxDelayMs, fallback: d.retry.maxDelayMs },
      );
    }
    if (o.attemptTimeoutMs !== false && o.totalTimeoutMs !== false) {
      requireOrder(
        ctx,
        { path: ["attemptTimeoutMs"], given: o.attemptTimeoutMs, fallback: d.attemptTimeoutMs },
        { path: ["totalTimeoutMs"], given: o.totalTimeoutMs, fallback: d.totalTimeoutMs },
        ": one attempt cannot outlast the whole call",
      );
    }
  });

true satisfies SchemaMatches<typeof resilienceOptionsSchema, ResilienceOptions>;
true satisfies SchemaMatches<typeof retrySchema, RetryOptions>;
true satisfies SchemaMatches<typeof circuitBreakerSchema, CircuitBreakerOptions>;
true satisfies SchemaMatches<typeof bulkheadSchema, BulkheadOptions>;

/**
 * Validates `options` (once, when the plugin is created) and fills in the defaults. Throws an
 * `InvalidOptionError` naming the option, what it must be and the value given: unknown keys,
 * negative or non-finite delays, `maxAttempts` below 1 or not an integer, `attemptTimeoutMs` above
 * `totalTimeoutMs`, and so on.
 *
 * @example
 * ```ts
 * resolveResilienceOptions({ retry: { maxAttempts: 0 } });
 * // InvalidOptionError: usingResilience: option 'retry.maxAttempts' must be an integer of at least 1 (got 0).
 * ```
 * @internal
 */
export function resolveResilienceOptions(options: ResilienceOptions | undefined): ResolvedResilienceOptions {
  const o = parseOptions("usingResilience", resilienceOptionsSchema, options);
  const d = DEFAULT_RESILIENCE_OPTIONS;
  const retry =
    o.retry === false
      ? { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, jitter: 0 }
      : {
          maxAttempts: o.retry?.maxAttempts ?? d.retry.maxAttempts,
          baseDelayMs: o.retry?.baseDelayMs ?? d.retry.baseDelayMs,
          maxDelayMs: o.retry?.maxDelayMs ?? d.retry.maxDelayMs,
          jitter: o.retry?.jitter ?? d.retry.jitter,
        };
  const breaker = o.circuitBreaker;
  const bulkhead = o.bulkhead;
  return {
    ...retry,
    attemptTimeoutMs: o.attemptTimeoutMs === false ? undefined : (o.attemptTimeoutMs ?? d.attemptTimeoutMs),
    totalTimeoutMs: o.totalTimeoutMs === false ? undefined : (o.totalTimeoutMs ?? d.totalTimeoutMs),
    circuitBreaker:
      breaker === false
        ? undefined
        : {
            consecutiveFailures: breaker?.consecutiveFailures ?? d.circuitBreaker.consecutiveFailures,
            halfOpenAfterMs: breaker?.halfOpenAfterMs ?? d.circuitBreaker.halfOpenAfterMs,
          },
    // Off by default: only `bulkhead: {...}` turns it on.
    bulkhead:
      bulkhead === undefined || bulkhead === false
        ? undefined
        : {
            limit: bulkhead.limit ?? DEFAULT_BULKHEAD_OPTIONS.limit,
            queue: bulkhead.queue ?? DEFAULT_BULKHEAD_OPTIONS.queue,
          },
    isTransient: o.isTransient ?? d.isTransient,
    random: o.random ?? d.random,
  };
}

/**
 * One line describing resolved options, e.g. `resilience(retry: 3 attempts, backoff 200-5000ms,
 * attempt timeout 30000ms, total 120000ms, breaker: 5 failures/30000ms, bulkhead: off)`.
 *
 * @example
 * ```ts
 * describeResilience(resolveResilienceOptions({ retry: false })); // "resilience(retry: off, ...)"
 * ```
 * @internal
 */
export function describeResilience(o: ResolvedResilienceOptions): string {
  const retry =
    o.maxAttempts === 1 ? "retry: off" : `retry: ${o.maxAttempts} attempts, backoff ${o.baseDelayMs}-${o.maxDelayMs}ms`;
  const attempt = o.attemptTimeoutMs === undefined ? "attempt timeout off" : `attempt timeout ${o.attemptTimeoutMs}ms`;
  const total = o.totalTimeoutMs === undefined ? "total off" : `total ${o.totalTimeoutMs}ms`;
  const breaker = o.circuitBreaker
    ? `breaker: ${o.circuitBreaker.consecutiveFailures} failures/${o.circuitBreaker.halfOpenAfterMs}ms`
    : "breaker: off";
  const bulkhead = o.bulkhead
    ? `bulkhead: ${o.bulkhead.limit} concurrent, ${o.bulkhead.queue} queued`
    : "bulkhead: off";
  return `resilience(${retry}, ${attempt}, ${total}, ${breaker}, ${bulkhead})`;
}
