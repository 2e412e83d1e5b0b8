import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError, ToolResult, TransientError } from "@needlework/core";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CheckpointError, FileRunStore, ScriptedChatClient, type ScriptedStep } from "../../src/agent/index.js";
import type { AgentFactory, ResilienceOptions } from "../../src/index.js";
import { chaosPlugin, seededRandom } from "../../src/testing/chaos.js";
import { assertStatus, checkpointOf } from "../agent-fixtures.js";
import { abortListeners, buildFactory, flushMicrotasks, World } from "./reliability-fixtures.js";
import { heldTimers, useFakeTimers } from "../support/fake-timers.js";

// Side effects under faults: what runs, and how many times. Counts are of tool-body executions
// per call id (World), the only thing a charged card or a sent e-mail cares about.

const RETRY: ResilienceOptions = {
  retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 40 },
  attemptTimeoutMs: 100,
  totalTimeoutMs: 1_000,
};

beforeEach(() => {
  useFakeTimers();
});
afterEach(() => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
});

function agentOf(
  factory: AgentFactory,
  steps: readonly ScriptedStep[],
  extra: { checkpointSecret?: string; store?: FileRunStore; maxConcurrency?: number } = {},
) {
  const model = new ScriptedChatClient(steps);
  return {
    model,
    agent: factory.createAgent({ name: "side-effects", instructions: "Test.", chatClient: model, ...extra }),
  };
}

/** What one attempt of the non-idempotent tool does after its side effect. */
const attemptFault = fc.constantFrom(
  "transient",
  "http500",
  "http504",
  "reset",
  "hang",
  "hangIgnoringSignal",
  "timeoutError",
  "ok",
);

describe("a non-idempotent tool never runs twice for one call", () => {
  it("whatever each attempt throws or however long it hangs after its side effect", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(attemptFault, { minLength: 1, maxLength: 4 }), async (faults) => {
        const world = new World().on("charge", (_args, ctx) => {
          switch (faults[ctx.attempt - 1] ?? "ok") {
            case "transient":
              throw new TransientError("blip");
            case "http500":
              throw Object.assign(new Error("Internal Server Error"), { status: 500 });
            case "http504":
              throw Object.assign(new Error("Gateway Timeout"), { status: 504 });
            case "reset":
              throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
            case "timeoutError":
              throw Object.assign(new Error("gateway"), { name: "TimeoutError" });
            case "hang":
              return new Promise((_, reject) =>
                ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
              );
            case "hangIgnoringSignal":
              return new Promise((resolve) => setTimeout(() => resolve({ late: true }), 500));
            default:
              return { charged: true };
          }
        });
        const factory = buildFactory(world, { resilience: RETRY, shaping: false });
        const pending = factory.tools.invoke({ name: "charge", arguments: { id: "c1", amount: 5 }, callId: "one" });
        await vi.runAllTimersAsync();
        const outcome = await pending;
        expect(world.count("charge", "one")).toBe(1);
        expect(outcome.metadata.attempts).toBe(1);
      }),
      { numRuns: 60 },
    );
  });

  it("also when chaos fails the call after the body ran (inject: after), across 2,000 calls", async () => {
    const world = new World();
    const chaos = chaosPlugin({
      rate: 0.5,
      inject: "after",
      faults: { exception: true, transient: true, latency: { ms: 50, maxMs: 300 } },
      random: seededRandom(5),
    });
    const factory = buildFactory(world, { chaos, resilience: RETRY, shaping: false });
    const pending = Array.from({ length: 2_000 }, (_, i) =>
      factory.tools.invoke({ name: "charge", arguments: { id: `c${i}`, amount: i }, callId: `c${i}` }),
    );
    await vi.runAllTimersAsync();
    const outcomes = await Promise.all(pending);
    expect(world.maxPerCall("charge")).toBe(1);
    expect(world.total("charge")).toBe(2_000);
    expect(outcomes.every((o) => o.metadata.attempts === 1)).toBe(true);
    expect(chaos.stats.injected).toBeGreaterThan(800);
    // Idempotent tools are retried under the same faults: the difference is the declaration.
    const idempotent = Array.from({ length: 200 }, (_, i) =>
      factory.tools.invoke({ name: "lookup", arguments: { id: `l${i}` }, callId: `l${i}` }),
    );
    await vi.runAllTimersAsync();
    expect((await Promise.all(idempotent)).some((o) => o.metadata.attempts > 1)).toBe(true);
  });

  it("a failure that proves the request was not applied (429, 503, refused) is retried for any tool", async () => {
    const notApplied = [
      Object.assign(new Error("Too Many Requests"), { status: 429 }),
      Object.assign(new Error("Service Unavailable"), { status: 503 }),
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", syscall: "connect" }),
    ];
    for (const error of notApplied) {
      let n = 0;
      // The body fails before its effect: the request never reached the service.
      const world = new World().on("charge", () => {
        if (++n === 1) throw error;
        return { charged: true };
      });
      const factory = buildFactory(world, { resilience: RETRY, shaping: false });
      const pending = factory.tools.invoke({ name: "charge", arguments: { id: "c", amount: 1 }, callId: "x" });
      await vi.runAllTimersAsync();
      expect(await pending).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    }
  });

  it("a transient ToolResult.fail is the tool's own request to retry, and is honoured", async () => {
    let n = 0;
    const world = new World().on("charge", () =>
      ++n === 1 ? ToolResult.fail("locked", { transient: true, code: "LOCKED" }) : { charged: true },
    );
    const factory = buildFactory(world, { resilience: RETRY, shaping: false });
    const pending = factory.tools.invoke({ name: "charge", arguments: { id: "c", amount: 1 }, callId: "x" });
    await vi.runAllTimersAsync();
    expect(await pending).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    expect(world.count("charge", "x")).toBe(2);
  });
});

describe("compensations under all-or-nothing", () => {
  const transferRound = (fail: string) => ({
    toolCalls: [
      { id: "d", name: "debit", arguments: { account: "a", amount: 5 } },
      { id: "c", name: "credit", arguments: { account: "b", amount: 5 } },
      { id: "r", name: "reserve", arguments: { account: fail, amount: 1 } },
    ],
  });

  it("every committed sibling is undone exactly once, in reverse completion order", async () => {
    const world = new World().on("reserve", () => {
      throw new ToolError("out of stock", { code: "OUT_OF_STOCK" });
    });
    const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
      transferRound("x"),
      { text: "The transfer failed and was rolled back." },
    ]);
    const pending = agent.run("transfer");
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(world.order).toEqual(["debit:d", "credit:c", "reserve:r", "undoCredit:c_undo", "undoDebit:d_undo"]);
    expect(result.calls.filter((c) => c.errorCode === "ROLLED_BACK").map((c) => c.callId)).toEqual(["d", "c"]);
  });

  it("a failing compensation is reported, not retried, and the others still run once", async () => {
    const world = new World()
      .on("reserve", () => {
        throw new ToolError("out of stock", { code: "OUT_OF_STOCK" });
      })
      .on("undoCredit", () => {
        throw new TransientError("ledger unavailable");
      });
    const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
      transferRound("x"),
      { text: "The transfer failed; the credit could not be reversed." },
    ]);
    const pending = agent.run("transfer");
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(world.count("undoCredit", "c_undo")).toBe(1);
    expect(world.count("undoDebit", "d_undo")).toBe(1);
    expect(result.calls.find((c) => c.callId === "c")).toMatchObject({ errorCode: "ROLLBACK_FAILED" });
    expect(result.calls.find((c) => c.callId === "d")).toMatchObject({ errorCode: "ROLLED_BACK" });
  });

  it("cancelled midway: the run settles at once with an AbortError, no compensation starts afterwards or runs twice", async () => {
    const controller = new AbortController();
    const world = new World()
      .on("reserve", () => {
        throw new ToolError("out of stock", { code: "OUT_OF_STOCK" });
      })
      .on(
        "undoCredit",
        (_args, ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
          ),
      );
    const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
      transferRound("x"),
      { text: "unused" },
    ]);
    let settled: unknown;
    agent.run("transfer", { signal: controller.signal }).then(
      (r) => (settled = r),
      (e: unknown) => (settled = e),
    );
    await vi.advanceTimersByTimeAsync(50); // inside the compensation's attempt timeout
    expect(world.count("undoCredit", "c_undo")).toBe(1);
    controller.abort();
    await flushMicrotasks();
    expect((settled as Error).name).toBe("AbortError");
    await vi.runAllTimersAsync();
    expect(world.count("undoCredit", "c_undo")).toBe(1);
    expect(world.count("undoDebit", "d_undo")).toBe(0);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it("whichever members fail and whichever compensations fail, each committed member is compensated exactly once", async () => {
    const member = fc.record({
      forward: fc.constantFrom("ok", "fail", "transientThenOk"),
      undo: fc.constantFrom("ok", "throw", "failResult", "hang"),
    });
    await fc.assert(
      fc.asyncProperty(fc.tuple(member, member, member), async (plan) => {
        const world = new World();
        const tools = ["debit", "credit", "reserve"] as const;
        const undoOf = { debit: "undoDebit", credit: "undoCredit", reserve: "undoReserve" } as const;
        tools.forEach((tool, i) => {
          const { forward, undo } = plan[i]!;
          world.on(tool, (args, ctx) => {
            if (forward === "fail") throw new ToolError("no", { code: "NO" });
            if (forward === "transientThenOk" && ctx.attempt === 1)
              return ToolResult.fail("busy", { transient: true, code: "BUSY" });
            return { ...args };
          });
          world.on(undoOf[tool], (_args, ctx) => {
            if (undo === "throw") throw new Error("undo failed");
            if (undo === "failResult") return ToolResult.fail("cannot undo", { code: "UNDO_FAILED" });
            if (undo === "hang")
              return new Promise((_, reject) =>
                ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
              );
            return { undone: true };
          });
        });
        const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
          transferRound("x"),
          { text: "Reported." },
          { text: "Reported again." },
        ]);
        const pending = agent.run("transfer");
        await vi.runAllTimersAsync();
        const result = await pending;
        const anyFailed = plan.some((p) => p.forward === "fail");
        tools.forEach((tool, i) => {
          const id = ["d", "c", "r"][i]!;
          const committed = world.count(tool, id) > 0 && plan[i]!.forward !== "fail";
          const undone = world.count(undoOf[tool], `${id}_undo`);
          expect(undone).toBeLessThanOrEqual(1);
          expect(undone).toBe(anyFailed && committed ? 1 : 0);
          expect(result.calls.filter((c) => c.compensationFor === id)).toHaveLength(anyFailed && committed ? 1 : 0);
        });
      }),
      { numRuns: 80 },
    );
  });
});

describe("approval-gated tools never run without approval", () => {
  const gatedRound = {
    toolCalls: [
      { id: "l", name: "lookup", arguments: { id: "o1" } },
      { id: "g1", name: "refund", arguments: { orderId: "o1", amount: 40 } },
      { id: "ch", name: "charge", arguments: { id: "o2", amount: 3 } },
      { id: "g2", name: "smallRefund", arguments: { orderId: "o3" } },
    ],
  };

  it("in a parallel round nothing runs before the decisions; then approved calls run once and denied ones never", async () => {
    const world = new World();
    const { agent } = agentOf(
      buildFactory(world, { resilience: RETRY, shaping: false }),
      [gatedRound, { text: "Refund issued; the small refund was denied." }],
      { maxConcurrency: 4 },
    );
    const paused = await agent.run("refunds");
    assertStatus(paused, "awaiting_approval");
    expect(world.order).toEqual([]);
    const pending = agent.resume(paused.checkpoint, { g1: "approved", g2: "denied" });
    await vi.runAllTimersAsync();
    await pending;
    expect([...world.runs].sort()).toEqual([
      ["charge:ch", 1],
      ["lookup:l", 1],
      ["refund:g1", 1],
    ]);
  });

  it("a checkpoint resumed twice at once runs its calls once: the second resume is refused", async () => {
    const world = new World();
    const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
      gatedRound,
      { text: "Done with the refunds as decided." },
    ]);
    const checkpoint = checkpointOf(await agent.run("refunds"));
    const text = JSON.stringify(checkpoint);
    const both = Promise.allSettled([
      agent.resume(text, { g1: "approved", g2: "approved" }),
      agent.resume(checkpoint, { g1: "approved", g2: "approved" }),
    ]);
    await vi.runAllTimersAsync();
    const [a, b] = await both;
    const refused = [a, b].filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointError);
    expect(((refused[0] as PromiseRejectedResult).reason as CheckpointError).code).toBe("CHECKPOINT_ALREADY_RESUMED");
    expect(world.maxPerCall("refund")).toBe(1);
    expect(world.maxPerCall("smallRefund")).toBe(1);
    expect(world.total("refund") + world.total("smallRefund")).toBe(2);
  });

  it("two agents (two processes' worth) sharing a secret and a file store resume one checkpoint once", async () => {
    vi.useRealTimers(); // file I/O below; the store's lease renewals are stopped when each run ends
    const directory = await mkdtemp(join(tmpdir(), "nw-resumed-"));
    try {
      const world = new World();
      const factory = buildFactory(world, { resilience: false, shaping: false });
      const steps = [gatedRound, { text: "Done with the refunds as decided." }];
      const checkpointSecret = "shared-secret-".repeat(4);
      // The pause is made by an agent without a store (another process); each resume by its own
      // process over the one directory: the run journal there is what lets one of them through.
      const paused = await agentOf(factory, steps, { checkpointSecret }).agent.run("refunds");
      const text = JSON.stringify(checkpointOf(paused));
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, () =>
          agentOf(factory, [{ text: "Done with the refunds as decided." }], {
            checkpointSecret,
            store: new FileRunStore(directory),
          }).agent.resume(text, { g1: "approved", g2: "denied" }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected"))
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "CHECKPOINT_ALREADY_RESUMED" });
      expect(world.count("refund", "g1")).toBe(1);
      expect(world.total("smallRefund")).toBe(0);
    } finally {
      await rm(directory, { recursive: true, force: true });
      useFakeTimers();
    }
  });

  it("retries happen inside an approved call only; the same tool asked again later waits for a new approval", async () => {
    let attempts = 0;
    const world = new World().on("smallRefund", () =>
      ++attempts < 3 ? ToolResult.fail("busy", { transient: true, code: "BUSY" }) : { refunded: true },
    );
    const { agent } = agentOf(buildFactory(world, { resilience: RETRY, shaping: false }), [
      { toolCalls: [{ id: "s1", name: "smallRefund", arguments: { orderId: "o1" } }] },
      { toolCalls: [{ id: "s2", name: "smallRefund", arguments: { orderId: "o1" } }] },
      { text: "Refunded once; the second request is waiting." },
    ]);
    const first = await agent.run("refund");
    expect(world.total("smallRefund")).toBe(0);
    const resumed = agent.resume(checkpointOf(first), { s1: "approved" });
    await vi.runAllTimersAsync();
    const second = await resumed;
    expect(world.count("smallRefund", "s1")).toBe(3); // three attempts of the one approved call
    assertStatus(second, "awaiting_approval");
    expect(second.pendingApprovals.map((p) => p.callId)).toEqual(["s2"]);
    expect(world.count("smallRefund", "s2")).toBe(0);
  });

  it("under random rounds and decisions, a gated body runs only for an approved call, once", async () => {
    const call = fc.record({
      tool: fc.constantFrom("refund", "smallRefund", "lookup", "charge"),
      decision: fc.constantFrom("approved", "denied"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("best-effort", "all-or-nothing", "fail-fast"),
        async (plan, roundPolicy) => {
          const world = new World();
          const factory = buildFactory(world, { resilience: RETRY, shaping: false });
          const model = new ScriptedChatClient([
            {
              toolCalls: plan.map((p, i) => ({
                id: `k${i}`,
                name: p.tool,
                arguments:
                  p.tool === "lookup"
                    ? { id: "a" }
                    : p.tool === "charge"
                      ? { id: "a", amount: 1 }
                      : p.tool === "refund"
                        ? { orderId: "a", amount: 1 }
                        : { orderId: "a" },
              })),
            },
            { text: "Reported." },
            { text: "Reported again." },
          ]);
          const agent = factory.createAgent({ name: "p", instructions: "p", chatClient: model, roundPolicy });
          const paused = await agent.run("go");
          const gated = plan
            .map((p, i) => ({ ...p, id: `k${i}` }))
            .filter((p) => p.tool === "refund" || p.tool === "smallRefund");
          if (gated.length === 0) {
            expect(paused.status).not.toBe("awaiting_approval");
            return;
          }
          assertStatus(paused, "awaiting_approval");
          expect(world.runs.size).toBe(0);
          const resumed = agent.resume(paused.checkpoint, Object.fromEntries(gated.map((g) => [g.id, g.decision])));
          await vi.runAllTimersAsync();
          await resumed;
          for (const g of gated.filter((x) => x.decision === "denied")) expect(world.count(g.tool, g.id)).toBe(0);
          for (const [, n] of world.runs) expect(n).toBe(1);
          if (roundPolicy === "best-effort")
            for (const g of gated.filter((x) => x.decision === "approved")) expect(world.count(g.tool, g.id)).toBe(1);
        },
      ),
      { numRuns: 80 },
    );
  });
});
