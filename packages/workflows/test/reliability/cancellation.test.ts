import { isAbortError, ToolError, TransientError } from "@needlework/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AgentRunResult, type ChatClient, ScriptedChatClient, type ScriptedStep } from "../../src/agent/index.js";
import type { AgentFactory } from "../../src/index.js";
import { assertStatus } from "../agent-fixtures.js";
import { abortListeners, buildFactory, flushMicrotasks, World } from "./reliability-fixtures.js";
import { heldTimers, useFakeTimers } from "../support/fake-timers.js";

// Cancellation: wherever the caller aborts, the run settles at once (no timer is advanced after the
// abort) with an AbortError, and leaves no timer and no abort listener behind.

/** Waits `ms` on a (fake) timer, or rejects with the signal's reason: a tool that honours cancellation. */
function delay<T>(ms: number, signal: AbortSignal, value: T): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const never = <T>(): Promise<T> => new Promise<T>(() => {});

interface Tracked {
  done: boolean;
  result?: AgentRunResult;
  error?: unknown;
}

function track(promise: Promise<AgentRunResult>): Tracked {
  const state: Tracked = { done: false };
  promise.then(
    (result) => Object.assign(state, { done: true, result }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

/** Aborts, then lets promise callbacks run without advancing time: the run must have settled with an AbortError. */
async function abortAndExpectPrompt(controller: AbortController, tracked: Tracked): Promise<void> {
  controller.abort();
  await flushMicrotasks();
  expect(tracked.done).toBe(true);
  expect(isAbortError(tracked.error)).toBe(true);
  expect(abortListeners(controller.signal)).toBe(0);
}

/**
 * Nothing is left behind, whether the tool honours its signal or ignores it: resilience listens to
 * the caller during the attempt and closes the call as cancelled at once (issue 16, item 11); the
 * ignoring tool keeps running on its own, with no timer of ours waiting for it.
 */
async function expectOnlyTheAttemptTimerOf(_honours: boolean): Promise<void> {
  expect(heldTimers()).toBe(0);
  await vi.advanceTimersByTimeAsync(5_000);
  expect(heldTimers()).toBe(0);
}

function setup(
  steps: readonly ScriptedStep[] | ChatClient,
  configure: (world: World) => void = () => {},
  extra: { approvalPolicy?: () => Promise<boolean> } = {},
) {
  const world = new World();
  configure(world);
  const factory: AgentFactory = buildFactory(world, {
    resilience: {
      retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 1_000, jitter: 0 },
      attemptTimeoutMs: 5_000,
      totalTimeoutMs: 20_000,
    },
  });
  const chatClient = Array.isArray(steps) ? new ScriptedChatClient(steps) : (steps as ChatClient);
  const agent = factory.createAgent({ name: "cancel", instructions: "Test.", chatClient, ...extra });
  return { world, agent, chatClient };
}

const transfer = {
  toolCalls: [
    { id: "d", name: "debit", arguments: { account: "a", amount: 5 } },
    { id: "c", name: "credit", arguments: { account: "b", amount: 5 } },
    { id: "r", name: "reserve", arguments: { account: "x", amount: 1 } },
  ],
};

beforeEach(() => {
  useFakeTimers();
});
afterEach(() => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
});

describe("cancellation", () => {
  it("before the run: rejects with an AbortError without asking the model", async () => {
    const { agent, chatClient, world } = setup([{ text: "unused" }]);
    const error = await agent.run("go", { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect((chatClient as ScriptedChatClient).requests).toHaveLength(0);
    expect(world.runs.size).toBe(0);
  });

  it("during the model turn, even when the chat client ignores the signal", async () => {
    const { agent } = setup({ complete: () => never() });
    const controller = new AbortController();
    const tracked = track(agent.run("go", { signal: controller.signal }));
    await flushMicrotasks();
    await abortAndExpectPrompt(controller, tracked);
  });

  it("during a tool call that honours its signal, and one that ignores it", async () => {
    for (const honours of [true, false]) {
      const { agent } = setup([{ toolCalls: [{ name: "lookup", arguments: { id: "a" } }] }, { text: "unused" }], (w) =>
        w.on("lookup", (args, ctx) => (honours ? delay(60_000, ctx.signal, args) : never())),
      );
      const controller = new AbortController();
      const tracked = track(agent.run("go", { signal: controller.signal }));
      await vi.advanceTimersByTimeAsync(100);
      await abortAndExpectPrompt(controller, tracked);
      await expectOnlyTheAttemptTimerOf(honours);
    }
  });

  it("between retries: the backoff wait ends at once", async () => {
    const { agent, world } = setup(
      [{ toolCalls: [{ name: "lookup", arguments: { id: "a" } }] }, { text: "unused" }],
      (w) =>
        w.on("lookup", () => {
          throw new TransientError("blip");
        }),
    );
    const controller = new AbortController();
    const tracked = track(agent.run("go", { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(500); // half way through the 1 s backoff
    expect(world.total("lookup")).toBe(1);
    expect(heldTimers()).toBe(1); // the backoff wait (resilience keeps one timer per call)
    await abortAndExpectPrompt(controller, tracked);
    expect(heldTimers()).toBe(0);
    expect(world.total("lookup")).toBe(1);
  });

  it("during compensation, when the undo tool honours its signal or ignores it", async () => {
    for (const honours of [true, false]) {
      const { agent, world } = setup([transfer, { text: "unused" }], (w) =>
        w
          .on("reserve", () => {
            throw new ToolError("out of stock", { code: "OUT_OF_STOCK" });
          })
          .on("undoCredit", (args, ctx) => (honours ? delay(60_000, ctx.signal, args) : never())),
      );
      const controller = new AbortController();
      const tracked = track(agent.run("go", { signal: controller.signal }));
      await vi.advanceTimersByTimeAsync(100);
      expect(world.count("undoCredit", "c_undo")).toBe(1);
      await abortAndExpectPrompt(controller, tracked);
      await expectOnlyTheAttemptTimerOf(honours);
      expect(world.count("undoDebit", "d_undo")).toBe(0);
    }
  });

  it("while awaiting approval: resume with an aborted signal runs nothing and keeps the checkpoint resumable", async () => {
    const { agent, world } = setup([
      { toolCalls: [{ id: "g", name: "refund", arguments: { orderId: "o", amount: 1 } }] },
      { text: "Refunded." },
    ]);
    const paused = await agent.run("refund");
    assertStatus(paused, "awaiting_approval");
    const error = await agent
      .resume(paused.checkpoint, { g: "approved" }, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(world.runs.size).toBe(0);
    expect((await agent.resume(paused.checkpoint, { g: "approved" })).status).toBe("completed");
    expect(world.count("refund", "g")).toBe(1);
  });

  it("while an approval policy is still deciding", async () => {
    const { agent, world } = setup(
      [{ toolCalls: [{ name: "charge", arguments: { id: "a", amount: 1 } }] }, { text: "unused" }],
      undefined,
      { approvalPolicy: () => never() },
    );
    const controller = new AbortController();
    const tracked = track(agent.run("go", { signal: controller.signal }));
    await flushMicrotasks();
    await abortAndExpectPrompt(controller, tracked);
    expect(world.runs.size).toBe(0);
  });

  describe("at any point of a run with delays, retries, compensation and an approval pause", () => {
    function scenario() {
      let lookups = 0;
      return setup(
        [
          {
            toolCalls: [
              { name: "lookup", arguments: { id: "a" } },
              { name: "charge", arguments: { id: "b", amount: 2 } },
            ],
          },
          transfer,
          { toolCalls: [{ id: "g", name: "refund", arguments: { orderId: "o", amount: 1 } }] },
        ],
        (w) =>
          w
            .on("lookup", (args, ctx) =>
              ++lookups === 1 ? Promise.reject(new TransientError("blip")) : delay(15, ctx.signal, args),
            )
            .on("charge", (args, ctx) => delay(30, ctx.signal, args))
            .on("debit", (args, ctx) => delay(20, ctx.signal, args))
            .on("reserve", (_args, ctx) =>
              delay(5, ctx.signal, undefined).then(() =>
                Promise.reject(new ToolError("out of stock", { code: "OUT_OF_STOCK" })),
              ),
            )
            .on("undoCredit", (args, ctx) => delay(25, ctx.signal, args))
            .on("undoDebit", (args, ctx) => delay(25, ctx.signal, args)),
      );
    }

    it("the scenario itself runs to its approval pause in about 1.1 s of fake time", async () => {
      const { agent } = scenario();
      const tracked = track(agent.run("go"));
      await vi.runAllTimersAsync();
      expect(tracked.result?.status).toBe("awaiting_approval");
    });

    it("aborted after any number of milliseconds: settles at once with an AbortError, or had already finished", async () => {
      let aborted = 0;
      for (let t = 0; t <= 1_200; t += t < 40 ? 1 : 7) {
        const { agent } = scenario();
        const controller = new AbortController();
        const tracked = track(agent.run("go", { signal: controller.signal }));
        await vi.advanceTimersByTimeAsync(t);
        if (tracked.done) {
          expect(tracked.result?.status).toBe("awaiting_approval");
          continue;
        }
        aborted++;
        await abortAndExpectPrompt(controller, tracked);
        expect(heldTimers()).toBe(0);
      }
      expect(aborted).toBeGreaterThan(100);
    });

    it("aborted after any number of promise turns at the start: settles at once with an AbortError", async () => {
      for (let turns = 0; turns < 60; turns++) {
        const { agent } = scenario();
        const controller = new AbortController();
        const tracked = track(agent.run("go", { signal: controller.signal }));
        await flushMicrotasks(turns);
        await abortAndExpectPrompt(controller, tracked);
        expect(heldTimers()).toBe(0);
      }
    });
  });
});
