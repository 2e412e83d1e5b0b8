import { TransientError } from "@needlework/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { kitBehaviour, kitBuilder, kitLog } from "../../test/agent-kit-fixtures.js";
import { Agent } from "../agent/declared-agent.js";
import { ScriptedChatClient } from "@needlework/core";
import type { AgentFrameworkPlugin } from "../plugin.js";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";

const GLOBAL = {
  retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100, jitter: 0 },
  circuitBreaker: false,
} as const;
const TWO_ATTEMPTS = {
  retry: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 100, jitter: 0 },
  circuitBreaker: false,
} as const;

@Agent({ name: "careful", instructions: "", functionGroups: ["orders"], resilience: TWO_ATTEMPTS })
class CarefulAgent {}

/** `refund` is idempotent and always fails transiently: every attempt shows in the log. */
function failingRefund(): void {
  kitBehaviour.set("refund", () => {
    throw new TransientError("payment gateway busy");
  });
}

const refundOnce = () =>
  new ScriptedChatClient([
    { toolCalls: [{ name: "refund", arguments: { orderId: "o1" } }] },
    { text: "The refund failed; please try later." },
  ]);

async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return promise;
}

beforeEach(() => {
  useFakeTimers();
});
afterEach(() => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
});

describe("per-agent resilience", () => {
  it("replaces the factory's options, never stacks on them: global 3 attempts, agent 2 -> exactly 2 (not 6)", async () => {
    const factory = kitBuilder()
      .usingResilience(GLOBAL)
      .usingToolResultMiddleware()
      .addAgents(CarefulAgent)
      .buildAgentFactory();
    failingRefund();

    const careful = await settle(factory.createAgent(CarefulAgent, { chatClient: refundOnce() }).run("refund o1"));
    expect(kitLog.filter((l) => l.startsWith("refund"))).toHaveLength(2);
    expect(careful.calls[0]).toMatchObject({ tool: "refund", status: "error", attempts: 2 });

    kitLog.length = 0;
    const ordinary = await settle(
      factory.createAgent({ name: "ordinary", instructions: "", chatClient: refundOnce() }).run("refund o1"),
    );
    expect(kitLog.filter((l) => l.startsWith("refund"))).toHaveLength(3);
    expect(ordinary.calls[0]!.attempts).toBe(3);

    kitLog.length = 0;
    const direct = await settle(factory.tools.invoke({ name: "refund", arguments: { orderId: "o1" } }));
    expect(direct.metadata.attempts).toBe(3);
  });

  it("createAgent({ resilience }) does the same for an ad-hoc agent, with a per-attempt timeout of its own", async () => {
    const factory = kitBuilder()
      .usingResilience({ ...GLOBAL, attemptTimeoutMs: 30_000 })
      .usingToolResultMiddleware()
      .buildAgentFactory();
    kitBehaviour.set(
      "lookupOrder",
      (_args, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason as Error), { once: true }),
        ),
    );
    const agent = factory.createAgent({
      name: "impatient",
      instructions: "",
      resilience: { retry: false, attemptTimeoutMs: 50 },
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "lookupOrder", arguments: { orderId: "o1" } }] },
        { text: "The lookup timed out." },
      ]),
    });
    const run = agent.run("where is o1");
    await vi.advanceTimersByTimeAsync(50);
    const result = await run;
    // lookupOrder is not declared idempotent (nor readOnly): its timeout leaves the outcome unknown.
    expect(result.calls[0]).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", attempts: 1 });
    expect(result.calls[0]!.latencyMs).toBeLessThan(1_000);
  });

  it("adds resilience innermost for an agent of a factory that has none", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    failingRefund();
    const result = await settle(
      factory
        .createAgent({ name: "a", instructions: "", chatClient: refundOnce(), resilience: TWO_ATTEMPTS })
        .run("refund"),
    );
    expect(kitLog).toHaveLength(2);
    // Inside the result middleware: the final failure is still an outcome the model reads.
    expect(result.calls[0]).toMatchObject({ status: "error", attempts: 2 });
    expect(result.status).toBe("completed_with_failures");
  });

  it("shares every other plugin's layer; agents of one declaration share one pipeline, so its circuit breakers", async () => {
    let created = 0;
    const seen: string[] = [];
    const audit: AgentFrameworkPlugin = {
      name: "audit",
      createMiddleware: () => {
        created++;
        return async (call, next) => {
          seen.push(`${call.name}#${call.attempt}`);
          return next();
        };
      },
    };
    const breaker = { retry: false, circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 } } as const;
    @Agent({ name: "guarded", instructions: "", resilience: breaker })
    class GuardedAgent {}
    const factory = kitBuilder()
      .usingResilience(GLOBAL)
      .usingPlugin(audit)
      .usingToolResultMiddleware()
      .addAgents(GuardedAgent)
      .buildAgentFactory();
    failingRefund();
    const twoRefunds = new ScriptedChatClient([
      {
        toolCalls: [
          { name: "refund", arguments: { orderId: "o1" } },
          { name: "refund", arguments: { orderId: "o2" } },
        ],
      },
      { text: "Both refunds failed." },
    ]);
    await settle(factory.createAgent(GuardedAgent, { chatClient: twoRefunds }).run("refund"));
    expect(kitLog).toHaveLength(2);
    expect(created).toBe(1);
    // audit sits outside resilience: it sees each call once.
    expect(seen).toEqual(["refund#1", "refund#1"]);

    // Another agent of the same declaration meets the open circuit: the tool does not run.
    const second = await settle(factory.createAgent(GuardedAgent, { chatClient: refundOnce() }).run("refund"));
    expect(second.calls[0]).toMatchObject({ errorCode: "CIRCUIT_OPEN", notCalled: true });
    expect(kitLog).toHaveLength(2);

    // An agent with its own options object has its own pipeline and breaker.
    const own = await settle(
      factory
        .createAgent({ name: "own", instructions: "", chatClient: refundOnce(), resilience: { ...breaker } })
        .run("refund"),
    );
    expect(own.calls[0]!.errorCode).not.toBe("CIRCUIT_OPEN");
    expect(kitLog).toHaveLength(3);
  });

  it("bad agent resilience options fail at createAgent with the option named", () => {
    const factory = kitBuilder().usingResilience().buildAgentFactory();
    const error = invalidOption(() =>
      factory.createAgent({
        name: "a",
        instructions: "",
        chatClient: refundOnce(),
        resilience: { attemptTimeoutMs: -1 },
      }),
    );
    expect(error).toMatchObject({ code: "INVALID_OPTION", option: "resilience.attemptTimeoutMs", value: -1 });
    expect(error.message).toMatch(
      /^createAgent: option 'resilience\.attemptTimeoutMs' must be false or a finite number of milliseconds, above 0/,
    );
  });
});
