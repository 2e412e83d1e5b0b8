import { createToolInvoker } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import {
  AdminTools,
  ContactTools,
  kitBuilder,
  kitLog,
  offered,
  OrderTools,
  RefundTools,
} from "../../../test/agent-kit-fixtures.js";
import { toolReply } from "../../../test/agent-fixtures.js";
import type { AgentFrameworkPlugin } from "../../plugin.js";
import { createAgent } from "../agent.js";
import { ScriptedChatClient } from "@needlework/core";

const ALL = [
  "cancelOrder",
  "charge",
  "deleteEverything",
  "lookupOrder",
  "refund",
  "sendInvoice",
  "updateContact",
  "voidCharge",
];

describe("function groups", () => {
  it("offers only the tools of the named groups plus the listed classes (a class may sit in several groups)", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    const model = new ScriptedChatClient([{ text: "hi" }]);
    const agent = factory.createAgent({
      name: "orders",
      instructions: "",
      chatClient: model,
      functionGroups: ["orders"],
      functions: [ContactTools],
    });
    await agent.run("hello");
    // RefundTools is in "orders" and "billing"; BillingTools only in "billing".
    expect(offered(model.requests[0])).toEqual(["cancelOrder", "lookupOrder", "refund", "updateContact"]);
    expect(agent.tools.definitions.map((d) => d.name).sort()).toEqual([
      "cancelOrder",
      "lookupOrder",
      "refund",
      "updateContact",
    ]);
    // One pipeline per selection: agents picking the same classes share it.
    expect(
      factory.createAgent({
        name: "again",
        instructions: "",
        chatClient: model,
        functions: [ContactTools, RefundTools, OrderTools],
      }).tools,
    ).toBe(agent.tools);

    const billing = new ScriptedChatClient([{ text: "hi" }]);
    await factory
      .createAgent({ name: "billing", instructions: "", chatClient: billing, functionGroups: ["billing"] })
      .run("hello");
    expect(offered(billing.requests[0])).toEqual(["charge", "refund", "sendInvoice"]);
  });

  it("an agent that names no group and no class gets every tool of the factory", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    const model = new ScriptedChatClient([{ text: "hi" }]);
    await factory.createAgent({ name: "all", instructions: "", chatClient: model }).run("hello");
    expect(offered(model.requests[0])).toEqual(ALL);
    const empty = new ScriptedChatClient([{ text: "hi" }]);
    await factory
      .createAgent({ name: "all", instructions: "", chatClient: empty, functionGroups: [], functions: [] })
      .run("hello");
    expect(offered(empty.requests[0])).toEqual(ALL);
  });

  it("allows only what it offers: a call to another tool is UNKNOWN_TOOL, its body never runs, and observers see it", async () => {
    const observed: string[] = [];
    const watch: AgentFrameworkPlugin = {
      name: "watch",
      createObserver: () => (outcome) =>
        void observed.push(`${outcome.metadata.tool}:${outcome.errorCode ?? outcome.status}`),
    };
    const factory = kitBuilder().usingToolResultMiddleware().usingPlugin(watch).buildAgentFactory();
    const agent = factory.createAgent({
      name: "support",
      instructions: "",
      functionGroups: ["orders"],
      chatClient: new ScriptedChatClient([
        {
          toolCalls: [
            { name: "deleteEverything", arguments: {} },
            { name: "lookupOrder", arguments: { orderId: "o1" } },
          ],
        },
        { text: "I can only look orders up." },
      ]),
    });
    const result = await agent.run("delete everything");
    expect(kitLog).toEqual(['lookupOrder:{"orderId":"o1"}']);
    expect(result.calls.map((c) => [c.tool, c.status, c.errorCode, c.notCalled])).toEqual([
      ["deleteEverything", "error", "UNKNOWN_TOOL", true],
      ["lookupOrder", "ok", undefined, false],
    ]);
    const reply = toolReply(result.messages, "call_1_1");
    expect(reply).toMatchObject({
      error_code: "UNKNOWN_TOOL",
      message: "There is no tool named 'deleteEverything'.",
      suggestion: "Use one of the available tools: lookupOrder, cancelOrder, refund.",
    });
    expect(observed).toEqual(["deleteEverything:UNKNOWN_TOOL", "lookupOrder:ok"]);
    // Directly through the agent's invoker too.
    expect((await agent.tools.invoke({ name: "deleteEverything", arguments: {} })).errorCode).toBe("UNKNOWN_TOOL");
    expect(agent.tools.get("deleteEverything")).toBeUndefined();
    expect(kitLog).toHaveLength(1);
  });

  it("without a factory, createAgent(deps, options) scopes the invoker it is given the same way", async () => {
    kitLog.length = 0;
    const invoker = createToolInvoker(container.createChildContainer(), { functions: [OrderTools, AdminTools] });
    const model = new ScriptedChatClient([
      { toolCalls: [{ name: "deleteEverything", arguments: {} }] },
      { text: "Not allowed." },
    ]);
    const agent = createAgent(
      { invoker },
      { name: "support", instructions: "", chatClient: model, functionGroups: ["orders"] },
    );
    const result = await agent.run("delete everything");
    expect(offered(model.requests[0])).toEqual(["cancelOrder", "lookupOrder"]);
    expect(toolReply(result.messages, "call_1_1")).toMatchObject({
      error_code: "UNKNOWN_TOOL",
      message: "There is no tool named 'deleteEverything'.",
      suggestion: "Use one of the available tools: lookupOrder, cancelOrder.",
    });
    expect(kitLog).toEqual([]);
    expect(() =>
      createAgent({ invoker }, { name: "r", instructions: "", chatClient: model, resilience: { retry: false } }),
    ).toThrow(
      "createAgent: agent 'r' sets `resilience`, which needs the factory's pipeline: create it with factory.createAgent(...).",
    );
  });

  it("rolls back through a compensate tool the agent does not offer: the runtime calls it, not the model", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    const model = new ScriptedChatClient([
      {
        toolCalls: [
          { name: "charge", arguments: { amount: 5 } },
          { name: "sendInvoice", arguments: { to: "a@example.com" } },
        ],
      },
      { text: "The charge was voided because the invoice could not be sent." },
    ]);
    const result = await factory
      .createAgent({ name: "billing", instructions: "", chatClient: model, functionGroups: ["billing"] })
      .run("bill");
    expect(offered(model.requests[0])).not.toContain("voidCharge");
    expect(kitLog).toContain('voidCharge:{"tool":"charge","amount":5}');
    expect(result.calls.find((c) => c.tool === "voidCharge")).toMatchObject({
      status: "ok",
      compensationFor: "call_1_1",
    });
    expect(toolReply(result.messages, "call_1_1")).toMatchObject({ error_code: "ROLLED_BACK" });
  });

  it("a group that matches nothing is a clear error at createAgent, naming the groups on offer", () => {
    const factory = kitBuilder().buildAgentFactory();
    const chatClient = new ScriptedChatClient([]);
    expect(() =>
      factory.createAgent({ name: "typo", instructions: "", chatClient, functionGroups: ["order"] }),
    ).toThrow(
      "createAgent: agent 'typo': function group 'order' matches no tool class (groups on offer: billing, crm, orders). Fix the name, or add the tool class to the factory.",
    );
    expect(() => factory.createAgent({ name: "x", instructions: "", chatClient, functionGroups: [""] })).toThrow(
      /option 'functionGroups\.0' must be a non-empty group name \(as in @AgentFunctionGroup\("orders"\)\)/,
    );
    expect(() =>
      factory.createAgent({ name: "x", instructions: "", chatClient, functionGroups: "orders" as never }),
    ).toThrow(/option 'functionGroups' must be an array of group names/);
  });

  it("a listed class the factory does not offer is an error too", () => {
    const factory = kitBuilder().buildAgentFactory();
    const invoker = createToolInvoker(container.createChildContainer(), { functions: [OrderTools] });
    const chatClient = new ScriptedChatClient([]);
    expect(() =>
      createAgent({ invoker }, { name: "x", instructions: "", chatClient, functions: [AdminTools] }),
    ).toThrow(/AdminTools is not among the factory's tool classes/);
    expect(() =>
      factory.createAgent({ name: "x", instructions: "", chatClient, functions: [AdminTools] }),
    ).not.toThrow();
  });
});
