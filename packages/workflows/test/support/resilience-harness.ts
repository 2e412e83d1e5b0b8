import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  type InvokeOptions,
  type ToolContext,
  type ToolMiddleware,
  type ToolOutcome,
} from "@needlework/core";
import { container } from "tsyringe";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { z } from "zod";
import { createResiliencePlugin, type ResiliencePlugin } from "../../src/resilience/resilience.plugin.js";
import type { ResilienceOptions } from "../../src/resilience/resilience.options.js";
import { heldTimers, useFakeTimers } from "./fake-timers.js";

/**
 * The tools of the harness: `idem` (idempotent), `plain` (not idempotent), `quick` (idempotent, a 1 s
 * attempt timeout of its own) and `slow` (idempotent, a 100 s attempt timeout of its own).
 */
export type HarnessTool = "idem" | "plain" | "quick" | "slow";

/** What a harness tool does when called: its return value is the tool's, a throw is the tool's throw. */
export type Handler = (ctx: ToolContext) => unknown;

/** How a call ended, filled in when it settles. */
export interface CallState<T> {
  done: boolean;
  value?: T;
  error?: unknown;
}

/** A call watched without awaiting it: `state` says whether and how it ended. */
export interface TrackedCall<T> {
  readonly state: CallState<T>;
  /** Resolves with `state` once the call settles; never rejects. */
  readonly settled: Promise<CallState<T>>;
  /** The call itself. */
  readonly promise: Promise<T>;
}

/** Calls a harness tool with no arguments through the resilience middleware `setup` built. */
export interface HarnessInvoke {
  (name: HarnessTool, invokeOptions?: InvokeOptions): TrackedCall<ToolOutcome>;
  /** The plugin behind the middleware, for its events. */
  readonly plugin: ResiliencePlugin;
}

/** The tools of one test file, what they do, and how often they ran. */
export interface ResilienceHarness {
  /** Sets what tool `name` does when called (until the next test). */
  handle(name: HarnessTool, handler: Handler): void;
  /** How many times tool `name` has been called in this test; every tool together without a name. */
  calls(name?: HarnessTool): number;
  /**
   * A fresh invoker of the harness tools: `outer` middleware first, then the resilience middleware
   * with `options` (the random source fixed at 0.5 unless `options` sets one).
   */
  setup(options?: ResilienceOptions, outer?: readonly ToolMiddleware[]): HarnessInvoke;
}

/** Settings of {@link useResilienceHarness}. */
export interface ResilienceHarnessConfig {
  /** The fake clock's start (`Date.now()`); the real time by default. */
  readonly now?: number;
  /**
   * Let a test end with timers that hold the process open (a call it left pending on purpose).
   * By default every test must end with none ({@link heldTimers}).
   */
  readonly allowHeldTimers?: boolean;
}

/** A fixed random source: with the default half jitter, waits are 0.75 of the exponential delay. */
export const fixedRandom = (): number => 0.5;

/** A promise that never settles: a tool that hangs and ignores its signal. */
export const never = (): Promise<never> => new Promise<never>(() => {});

/** Watches `promise` without awaiting it. */
export function track<T>(promise: Promise<T>): TrackedCall<T> {
  const state: CallState<T> = { done: false };
  const settled = promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return { state, settled, promise };
}

/** A caller's signal whose abort listeners are counted, as cockatiel's tests do. */
export function countedController(): { controller: AbortController; signal: AbortSignal; listeners: Set<unknown> } {
  const controller = new AbortController();
  const { signal } = controller;
  const listeners = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>) => {
    listeners.add(args[1]);
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<typeof remove>) => {
    listeners.delete(args[1]);
    remove(...args);
  };
  return { controller, signal, listeners };
}

/**
 * The harness of the resilience tests, for one test file: call it once at the top of the file. Its
 * `beforeEach` switches to fake timers ({@link useFakeTimers}) and forgets handlers and call counts;
 * its `afterEach` checks that no timer holds the process open and restores the real timers.
 *
 * @example
 * ```ts
 * const { handle, calls, setup } = useResilienceHarness();
 * handle("plain", () => { throw new TypeError("bug"); });
 * const call = setup({ retry: false })("plain");
 * await call.settled;
 * expect(calls("plain")).toBe(1);
 * ```
 */
export function useResilienceHarness(config: ResilienceHarnessConfig = {}): ResilienceHarness {
  const handlers = new Map<HarnessTool, Handler>();
  const counts = new Map<HarnessTool, number>();
  const run = (name: HarnessTool, ctx: ToolContext): unknown => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const handler = handlers.get(name);
    if (handler === undefined) throw new TypeError(`The test set no handler for tool '${name}'.`);
    return handler(ctx);
  };

  @AgentFunctionGroup()
  class Tools {
    @AgentFunction({ description: "Idempotent.", input: z.object({}), idempotent: true })
    idem(_: object, ctx: ToolContext) {
      return run("idem", ctx);
    }

    @AgentFunction({ description: "Not idempotent.", input: z.object({}) })
    plain(_: object, ctx: ToolContext) {
      return run("plain", ctx);
    }

    @AgentFunction({
      description: "Idempotent with a 1 s attempt timeout of its own.",
      input: z.object({}),
      idempotent: true,
      timeoutMs: 1_000,
    })
    quick(_: object, ctx: ToolContext) {
      return run("quick", ctx);
    }

    @AgentFunction({
      description: "Idempotent, with a 100 s attempt timeout.",
      input: z.object({}),
      idempotent: true,
      timeoutMs: 100_000,
    })
    slow(_: object, ctx: ToolContext) {
      return run("slow", ctx);
    }
  }

  beforeEach(() => {
    useFakeTimers(config.now === undefined ? undefined : { now: config.now });
    handlers.clear();
    counts.clear();
  });
  afterEach(() => {
    try {
      if (config.allowHeldTimers !== true) expect(heldTimers()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  return {
    handle(name, handler) {
      handlers.set(name, handler);
    },
    calls: (name) => (name === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(name) ?? 0)),
    setup(options = {}, outer = []) {
      const c = container.createChildContainer();
      const plugin = createResiliencePlugin({ random: fixedRandom, ...options });
      const middleware = plugin.createMiddleware!({ container: c, tools: [], plugins: [plugin], position: 0 })!;
      const invoker = createToolInvoker(c, { functions: [Tools], middleware: [...outer, middleware] });
      const invoke = (name: HarnessTool, invokeOptions?: InvokeOptions) =>
        track(invoker.invoke({ name, arguments: {} }, invokeOptions));
      return Object.assign(invoke, { plugin });
    },
  };
}
