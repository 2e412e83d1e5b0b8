import { InvalidOptionError, isTransientError } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { backoffDelayMs } from "./backoff.js";
import { resiliencePlugin } from "./resilience.plugin.js";
import {
  DEFAULT_BULKHEAD_OPTIONS,
  DEFAULT_RESILIENCE_OPTIONS,
  type ResilienceOptions,
  resolveResilienceOptions,
} from "./resilience.options.js";

describe("resilience defaults", () => {
  it("pins every default, and every default is bounded", () => {
    expect(DEFAULT_RESILIENCE_OPTIONS).toEqual({
      retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5_000, jitter: 0.5 },
      attemptTimeoutMs: 30_000,
      totalTimeoutMs: 120_000,
      circuitBreaker: { consecutiveFailures: 5, halfOpenAfterMs: 30_000 },
      bulkhead: false,
      isTransient: isTransientError,
      random: Math.random,
    });
    expect(DEFAULT_BULKHEAD_OPTIONS).toEqual({ limit: 10, queue: 0 });
    expect(resolveResilienceOptions(undefined)).toEqual({
      maxAttempts: 3,
      baseDelayMs: 200,
      maxDelayMs: 5_000,
      jitter: 0.5,
      attemptTimeoutMs: 30_000,
      totalTimeoutMs: 120_000,
      circuitBreaker: { consecutiveFailures: 5, halfOpenAfterMs: 30_000 },
      bulkhead: undefined,
      isTransient: isTransientError,
      random: Math.random,
    });
    expect(resolveResilienceOptions({ bulkhead: {} }).bulkhead).toEqual({ limit: 10, queue: 0 });
  });

  it("freezes the defaults, nested objects included", () => {
    expect(Object.isFrozen(DEFAULT_RESILIENCE_OPTIONS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RESILIENCE_OPTIONS.retry)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RESILIENCE_OPTIONS.circuitBreaker)).toBe(true);
    expect(Object.isFrozen(DEFAULT_BULKHEAD_OPTIONS)).toBe(true);
  });

  it("fills in partial sections from the defaults", () => {
    const o = resolveResilienceOptions({
      retry: { maxAttempts: 5 },
      circuitBreaker: { halfOpenAfterMs: 1_000 },
      bulkhead: { queue: 4 },
    });
    expect(o).toMatchObject({
      maxAttempts: 5,
      baseDelayMs: 200,
      maxDelayMs: 5_000,
      jitter: 0.5,
      circuitBreaker: { consecutiveFailures: 5, halfOpenAfterMs: 1_000 },
      bulkhead: { limit: 10, queue: 4 },
    });
  });

  it("turns sections off with false", () => {
    const o = resolveResilienceOptions({
      retry: false,
      attemptTimeoutMs: false,
      totalTimeoutMs: false,
      circuitBreaker: false,
      bulkhead: false,
    });
    expect(o).toMatchObject({
      maxAttempts: 1,
      attemptTimeoutMs: undefined,
      totalTimeoutMs: undefined,
      circuitBreaker: undefined,
      bulkhead: undefined,
    });
  });
});

describe("resiliencePlugin", () => {
  it("is named resilience and describes its options on one line", () => {
    const plugin = resiliencePlugin();
    expect(plugin.name).toBe("resilience");
    expect(plugin.describe?.()).toBe(
      "resilience(retry: 3 attempts, backoff 200-5000ms, attempt timeout 30000ms, total 120000ms, breaker: 5 failures/30000ms, bulkhead: off)",
    );
    expect(
      resiliencePlugin({
        retry: false,
        attemptTimeoutMs: false,
        totalTimeoutMs: false,
        circuitBreaker: false,
        bulkhead: { limit: 4, queue: 2 },
      }).describe?.(),
    ).toBe("resilience(retry: off, attempt timeout off, total off, breaker: off, bulkhead: 4 concurrent, 2 queued)");
  });

  it("creates a middleware", () => {
    const middleware = resiliencePlugin().createMiddleware?.({
      container: container.createChildContainer(),
      tools: [],
      plugins: [],
      position: 0,
    });
    expect(typeof middleware).toBe("function");
  });

  const MS = "a finite number of milliseconds";
  const TIMEOUT = `false or ${MS}, above 0 and at most 2147483647`;
  // [case, options, the option named, the value reported, what the message says it must be]
  const invalid: Array<[string, unknown, string, unknown, string]> = [
    ["a non-object", 3, "", 3, "options must be an object (got 3)."],
    [
      "an unknown key",
      { retries: 3 },
      "retries",
      3,
      "unknown option 'retries'. Known options: retry, attemptTimeoutMs, totalTimeoutMs, circuitBreaker, " +
        "bulkhead, isTransient, random.",
    ],
    [
      "an unknown nested key",
      { retry: { attempts: 3 } },
      "retry.attempts",
      3,
      "unknown option 'retry.attempts'. Known options: maxAttempts, baseDelayMs, maxDelayMs, jitter.",
    ],
    ["retry: true", { retry: true }, "retry", true, "must be an object or false (got true)."],
    [
      "maxAttempts 0",
      { retry: { maxAttempts: 0 } },
      "retry.maxAttempts",
      0,
      "must be an integer of at least 1 (got 0).",
    ],
    [
      "fractional maxAttempts",
      { retry: { maxAttempts: 2.5 } },
      "retry.maxAttempts",
      2.5,
      "must be an integer of at least 1 (got 2.5).",
    ],
    [
      "infinite maxAttempts",
      { retry: { maxAttempts: Infinity } },
      "retry.maxAttempts",
      Infinity,
      "must be an integer of at least 1 (got Infinity).",
    ],
    ["a negative delay", { retry: { baseDelayMs: -1 } }, "retry.baseDelayMs", -1, `must be ${MS}, 0 or more`],
    ["a NaN delay", { retry: { maxDelayMs: Number.NaN } }, "retry.maxDelayMs", Number.NaN, `must be ${MS}`],
    ["a string delay", { retry: { maxDelayMs: "5s" } }, "retry.maxDelayMs", "5s", `must be ${MS}`],
    [
      "base above max",
      { retry: { baseDelayMs: 10_000 } },
      "retry.baseDelayMs",
      10_000,
      "must not exceed retry.maxDelayMs (5000) (got 10000).",
    ],
    [
      "base above max, both given",
      { retry: { baseDelayMs: 300, maxDelayMs: 200 } },
      "retry.maxDelayMs",
      200,
      "must not be below retry.baseDelayMs (300) (got 200).",
    ],
    [
      "max below the default base",
      { retry: { maxDelayMs: 100 } },
      "retry.maxDelayMs",
      100,
      "must not be below retry.baseDelayMs (200) (got 100).",
    ],
    [
      "jitter above 1",
      { retry: { jitter: 2 } },
      "retry.jitter",
      2,
      "must be a number from 0 (no jitter) to 1 (full jitter) (got 2).",
    ],
    ["a zero attempt timeout", { attemptTimeoutMs: 0 }, "attemptTimeoutMs", 0, `must be ${TIMEOUT} (got 0).`],
    [
      "an infinite total timeout",
      { totalTimeoutMs: Infinity },
      "totalTimeoutMs",
      Infinity,
      `must be ${TIMEOUT} (got Infinity).`,
    ],
    ["a timeout setTimeout cannot hold", { totalTimeoutMs: 2 ** 31 }, "totalTimeoutMs", 2 ** 31, "at most 2147483647"],
    [
      "attempt timeout above total",
      { attemptTimeoutMs: 5_000, totalTimeoutMs: 1_000 },
      "totalTimeoutMs",
      1_000,
      "must not be below attemptTimeoutMs (5000): one attempt cannot outlast the whole call (got 1000).",
    ],
    [
      "attempt timeout above the default total",
      { attemptTimeoutMs: 200_000 },
      "attemptTimeoutMs",
      200_000,
      "must not exceed totalTimeoutMs (120000): one attempt cannot outlast the whole call (got 200000).",
    ],
    [
      "total timeout below the default attempt timeout",
      { totalTimeoutMs: 1_000 },
      "totalTimeoutMs",
      1_000,
      "must not be below attemptTimeoutMs (30000)",
    ],
    [
      "zero consecutive failures",
      { circuitBreaker: { consecutiveFailures: 0 } },
      "circuitBreaker.consecutiveFailures",
      0,
      "must be an integer of at least 1 (got 0).",
    ],
    [
      "a negative half-open delay",
      { circuitBreaker: { halfOpenAfterMs: -5 } },
      "circuitBreaker.halfOpenAfterMs",
      -5,
      `must be ${MS}`,
    ],
    [
      "a zero bulkhead limit",
      { bulkhead: { limit: 0 } },
      "bulkhead.limit",
      0,
      "must be an integer of at least 1 (got 0).",
    ],
    [
      "an unbounded bulkhead queue",
      { bulkhead: { queue: Infinity } },
      "bulkhead.queue",
      Infinity,
      "must be an integer of at least 0 (got Infinity).",
    ],
    ["a non-function classifier", { isTransient: true }, "isTransient", true, "must be a function (got true)."],
    ["a non-function random", { random: 0.5 }, "random", 0.5, "must be a function (got 0.5)."],
  ];
  it.each(invalid)("rejects %s with a clear message when the plugin is created", (_, options, option, value, says) => {
    const error = invalidOption(() => resiliencePlugin(options as ResilienceOptions));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: "INVALID_OPTION", option, value });
    expect(error.message).toMatch(/^usingResilience: /);
    if (option !== "" && !says.startsWith("unknown")) expect(error.message).toContain(`option '${option}' `);
    expect(error.message).toContain(says);
  });

  it("accepts every boundary value", () => {
    expect(() =>
      resiliencePlugin({
        retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, jitter: 1 },
        attemptTimeoutMs: 2_147_483_647,
        totalTimeoutMs: 2_147_483_647,
        circuitBreaker: { consecutiveFailures: 1, halfOpenAfterMs: 0 },
        bulkhead: { limit: 1, queue: 0 },
      }),
    ).not.toThrow();
  });
});

describe("backoffDelayMs", () => {
  const settings = { baseDelayMs: 200, maxDelayMs: 5_000, jitter: 0 };

  it("doubles from baseDelayMs and caps at maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, settings, () => 0.5))).toEqual([
      200, 400, 800, 1_600, 3_200, 5_000, 5_000,
    ]);
    expect(backoffDelayMs(5_000, settings, () => 0.5)).toBe(5_000);
    expect(backoffDelayMs(5_000, { baseDelayMs: 0, maxDelayMs: 0, jitter: 1 }, () => 0.5)).toBe(0);
  });

  it("randomizes the jitter share of the delay", () => {
    expect(backoffDelayMs(2, { ...settings, jitter: 0.5 }, () => 0)).toBe(200);
    expect(backoffDelayMs(2, { ...settings, jitter: 0.5 }, () => 0.5)).toBe(300);
    expect(backoffDelayMs(2, { ...settings, jitter: 1 }, () => 0.25)).toBe(100);
    expect(backoffDelayMs(2, { ...settings, jitter: 1 }, () => 0.999)).toBeLessThanOrEqual(400);
  });

  it("clamps a random source that leaves [0, 1]", () => {
    expect(backoffDelayMs(1, { ...settings, jitter: 1 }, () => 7)).toBe(200);
    expect(backoffDelayMs(1, { ...settings, jitter: 1 }, () => -3)).toBe(0);
    expect(backoffDelayMs(1, { ...settings, jitter: 1 }, () => Number.NaN)).toBe(0);
  });
});
