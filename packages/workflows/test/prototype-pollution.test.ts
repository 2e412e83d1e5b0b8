// A polluted Object.prototype (a dependency's bug, a merge of user JSON) must supply no option:
// every options object is read from its own properties.
import { createToolInvoker } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it, vi } from "vitest";
import { createAgent } from "../src/agent/agent.js";
import { InMemoryRunStore } from "@needlework/durable";
import { ScriptedChatClient } from "@needlework/core";
import { usingAgentFramework } from "../src/builder/agent-framework.builder.js";
import { checkpointOf, CrmTools, PaymentTools, ToolWorld } from "./agent-fixtures.js";

const ATTACKER_SECRET = "attacker-known-secret-0123456789abcdef";

/**
 * Runs `body` with `values` on Object.prototype, restored after: assigned as an attacker would, or
 * non-enumerable where zod builds JSON Schemas (its `for...in` over a schema's shape fails, closed,
 * on an enumerable polluted key; what is tested here is that no option is read from it).
 */
async function polluted<T>(values: Record<string, unknown>, body: () => Promise<T>, enumerable = true): Promise<T> {
  const proto = Object.prototype as Record<string, unknown>;
  for (const [key, value] of Object.entries(values))
    Object.defineProperty(proto, key, { value, enumerable, writable: true, configurable: true });
  try {
    return await body();
  } finally {
    for (const key of Object.keys(values)) delete proto[key];
  }
}

function world(): { world: ToolWorld; scope: ReturnType<typeof container.createChildContainer> } {
  const w = new ToolWorld();
  const scope = container.createChildContainer();
  scope.register(ToolWorld, { useValue: w });
  return { world: w, scope };
}

const twoUpdates = {
  toolCalls: [
    { name: "updateContact", arguments: { contactId: "c1" } },
    { name: "updateContact", arguments: { contactId: "c2" } },
  ],
};

describe("a polluted Object.prototype supplies no option", () => {
  it("createAgent: no store, hook or maxToolCallsPerTurn comes from the prototype", async () => {
    const store = new InMemoryRunStore();
    const onToolCall = vi.fn();
    const onIterationStart = vi.fn();
    const { world: w, scope } = world();
    const invoker = createToolInvoker(scope, { functions: [CrmTools] });
    const result = await polluted({ store, onToolCall, onIterationStart, maxToolCallsPerTurn: 1 }, () => {
      const chatClient = new ScriptedChatClient([twoUpdates, { text: "Done." }]);
      const agent = createAgent({ invoker }, { name: "crm", instructions: "Sync.", chatClient });
      return agent.run("Sync c1 and c2.", { runId: "run_polluted" });
    });
    expect(result.status).toBe("completed");
    expect(w.log.map((e) => e.args)).toEqual([{ contactId: "c1" }, { contactId: "c2" }]);
    expect(onToolCall).not.toHaveBeenCalled();
    expect(onIterationStart).not.toHaveBeenCalled();
    expect(await store.journal.read("run_polluted")).toBeUndefined();
  });

  it("createAgent: checkpoints are not signed with a checkpointSecret from the prototype", async () => {
    const { scope } = world();
    const invoker = createToolInvoker(scope, { functions: [PaymentTools] });
    const refund = { toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 40 } }] };
    const checkpoint = await polluted({ checkpointSecret: ATTACKER_SECRET }, async () => {
      const chatClient = new ScriptedChatClient([refund, { text: "Refunded." }]);
      const agent = createAgent({ invoker }, { name: "payments", instructions: "Pay.", chatClient });
      return checkpointOf(await agent.run("Refund o1"));
    });
    // Whoever knows the attacker's secret cannot resume (or forge) the agent's checkpoints.
    const forger = createAgent(
      { invoker },
      {
        name: "payments",
        instructions: "Pay.",
        chatClient: new ScriptedChatClient([]),
        checkpointSecret: ATTACKER_SECRET,
      },
    );
    const call = checkpoint.pending.find((p) => p.requiresApproval)!.callId;
    await expect(forger.resume(checkpoint, { [call]: "approved" })).rejects.toMatchObject({
      code: "CHECKPOINT_SIGNATURE_MISMATCH",
    });
  });

  it("the factory and its plugins: no chat client, strict flag, formatter, sink or limit from the prototype", async () => {
    const { world: w, scope } = world();
    w.on("updateContact", () => {
      throw new Error("boom");
    });
    const formatter = vi.fn(() => ({ message: "from the prototype" }));
    const sink = { write: vi.fn() };
    const result = await polluted(
      {
        chatClient: new ScriptedChatClient([{ text: "polluted" }]),
        strict: true,
        formatter,
        sink,
        maxTokens: 1,
        retry: false,
      },
      async () => {
        const factory = usingAgentFramework(scope)
          .addAgentFunctions(CrmTools)
          .usingResilience({ retry: { maxAttempts: 1 } })
          .usingToolResultMiddleware()
          .usingTruncation()
          .usingRedaction()
          .usingDiagnostics()
          .buildAgentFactory();
        const chatClient = new ScriptedChatClient([twoUpdates, { text: "Both failed." }]);
        return factory.createAgent({ name: "crm", instructions: "Sync.", chatClient }).run("Sync.");
      },
      false,
    );
    expect(result.text).toBe("Both failed.");
    expect(result.calls.map((c) => c.errorCode)).toEqual(["UNHANDLED_ERROR", "UNHANDLED_ERROR"]);
    expect(formatter).not.toHaveBeenCalled();
    expect(sink.write).not.toHaveBeenCalled();
  });

  it("createToolInvoker: no middleware or argument limit from the prototype", async () => {
    const { world: w, scope } = world();
    const middleware = [vi.fn(() => Promise.resolve({ hijacked: true }))];
    const outcome = await polluted(
      { middleware, limits: { maxBytes: 1 } },
      () =>
        createToolInvoker(scope, { functions: [CrmTools] }).invoke({
          name: "updateContact",
          arguments: { contactId: "c1" },
        }),
      false,
    );
    expect(outcome.status).toBe("ok");
    expect(middleware[0]).not.toHaveBeenCalled();
    expect(w.log).toHaveLength(1);
  });
});
