import { isTransientError } from "@needlework/core";

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
const PREFIX = "usingResilience:";
const TOP_KEYS = [
  "retry",
  "attemptTimeoutMs",
  "totalTimeoutMs",
  "circuitBreaker",
  "bulkhead",
  "isTransient",
  "random",
] as const;
const RETRY_KEYS = ["maxAttempts", "baseDelayMs", "maxDelayMs", "jitter"] as const;
const BREAKER_KEYS = ["consecutiveFailures", "halfOpenAfterMs"] as const;
const BULKHEAD_KEYS = ["limit", "queue"] as const;

function show(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === undefined || value === null)
    return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return typeof value;
}

function plainObject(value: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `${PREFIX} ${path} must be an object${path === "options" ? "" : " or false"} (got ${show(value)}).`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      throw new TypeError(
        `${PREFIX} unknown option '${path === "options" ? key : `${path}.${key}`}' (known: ${keys.join(", ")}).`,
      );
  }
  return value as Record<string, unknown>;
}

function delay(value: unknown, path: string, fallback: number, { positive = false } = {}): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < 0 ||
    (positive && value === 0) ||
    value > MAX_TIMER_MS
  ) {
    throw new RangeError(
      `${PREFIX} ${path} must be a finite number of milliseconds, ${positive ? "above 0" : "0 or more"} and at most ${MAX_TIMER_MS} (got ${show(value)}).`,
    );
  }
  return value;
}

function integer(value: unknown, path: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new RangeError(`${PREFIX} ${path} must be an integer of at least ${min} (got ${show(value)}).`);
  }
  return value;
}

function timeout(value: unknown, path: string, fallback: number): number | undefined {
  if (value === false) return undefined;
  return delay(value, path, fallback, { positive: true });
}

function fn<T>(value: unknown, path: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== "function") throw new TypeError(`${PREFIX} ${path} must be a function (got ${show(value)}).`);
  return value as T;
}

/**
 * Validates `options` and fills in the defaults. Throws a `TypeError` or `RangeError` naming the
 * option and what it must be: unknown keys, negative or non-finite delays, `maxAttempts` below 1 or
 * not an integer, `attemptTimeoutMs` above `totalTimeoutMs`, and so on.
 *
 * @example
 * ```ts
 * resolveResilienceOptions({ retry: { maxAttempts: 0 } }); // RangeError: usingResilience: retry.maxAttempts must be ...
 * ```
 * @internal
 */
export function resolveResilienceOptions(options: ResilienceOptions | undefined): ResolvedResilienceOptions {
  const o = plainObject(options ?? {}, "options", TOP_KEYS);
  const d = DEFAULT_RESILIENCE_OPTIONS;

  let retry: { -readonly [K in keyof RetryOptions]-?: number } = {
    maxAttempts: 1,
    baseDelayMs: 0,
    maxDelayMs: 0,
    jitter: 0,
  };
  if (o["retry"] !== false) {
    const r = plainObject(o["retry"] ?? {}, "retry", RETRY_KEYS);
    retry = {
      maxAttempts: integer(r["maxAttempts"], "retry.maxAttempts", d.retry.maxAttempts, 1),
      baseDelayMs: delay(r["baseDelayMs"], "retry.baseDelayMs", d.retry.baseDelayMs),
      maxDelayMs: delay(r["maxDelayMs"], "retry.maxDelayMs", d.retry.maxDelayMs),
      jitter: d.retry.jitter,
    };
    if (r["jitter"] !== undefined) {
      const j = r["jitter"];
      if (typeof j !== "number" || !(j >= 0 && j <= 1))
        throw new RangeError(
          `${PREFIX} retry.jitter must be a number from 0 (no jitter) to 1 (full jitter) (got ${show(j)}).`,
        );
      retry.jitter = j;
    }
    if (retry.baseDelayMs > retry.maxDelayMs) {
      throw new RangeError(
        `${PREFIX} retry.baseDelayMs (${retry.baseDelayMs}) must not exceed retry.maxDelayMs (${retry.maxDelayMs}).`,
      );
    }
  }

  const attemptTimeoutMs = timeout(o["attemptTimeoutMs"], "attemptTimeoutMs", d.attemptTimeoutMs);
  const totalTimeoutMs = timeout(o["totalTimeoutMs"], "totalTimeoutMs", d.totalTimeoutMs);
  if (attemptTimeoutMs !== undefined && totalTimeoutMs !== undefined && attemptTimeoutMs > totalTimeoutMs) {
    throw new RangeError(
      `${PREFIX} attemptTimeoutMs (${attemptTimeoutMs}) must not exceed totalTimeoutMs (${totalTimeoutMs}): one attempt cannot outlast the whole call.`,
    );
  }

  let circuitBreaker: Required<CircuitBreakerOptions> | undefined;
  if (o["circuitBreaker"] !== false) {
    const c = plainObject(o["circuitBreaker"] ?? {}, "circuitBreaker", BREAKER_KEYS);
    circuitBreaker = {
      consecutiveFailures: integer(
        c["consecutiveFailures"],
        "circuitBreaker.consecutiveFailures",
        d.circuitBreaker.consecutiveFailures,
        1,
      ),
      halfOpenAfterMs: delay(c["halfOpenAfterMs"], "circuitBreaker.halfOpenAfterMs", d.circuitBreaker.halfOpenAfterMs),
    };
  }

  let bulkhead: Required<BulkheadOptions> | undefined;
  if (o["bulkhead"] !== undefined && o["bulkhead"] !== false) {
    const b = plainObject(o["bulkhead"], "bulkhead", BULKHEAD_KEYS);
    bulkhead = {
      limit: integer(b["limit"], "bulkhead.limit", DEFAULT_BULKHEAD_OPTIONS.limit, 1),
      queue: integer(b["queue"], "bulkhead.queue", DEFAULT_BULKHEAD_OPTIONS.queue, 0),
    };
  }

  return {
    ...retry,
    attemptTimeoutMs,
    totalTimeoutMs,
    circuitBreaker,
    bulkhead,
    isTransient: fn(o["isTransient"], "isTransient", d.isTransient),
    random: fn(o["random"], "random", d.random),
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
