import { describe, expect, it } from "vitest";
import { ContactTools, kitBuilder, offered } from "../../test/agent-kit-fixtures.js";
import { AgentFrameworkBuildError } from "../builder/build-error.js";
import { BUILD_DIAGNOSTIC_IDS } from "../builder/build-diagnostics.js";
import type { ChatClient } from "@needlework/core";
import { Agent, declaredAgentOf } from "./declared-agent.js";
import { ScriptedChatClient } from "@needlework/core";

@Agent({
  name: "support",
  description: "Answers order questions.",
  instructions: "You help with orders.",
  functionGroups: ["orders"],
  functions: [ContactTools],
  maxIterations: 4,
})
class SupportAgent {}

@Agent({ name: "billing", instructions: "You bill.", functionGroups: ["billing"] })
class BillingAgent {}

const hello = () => new ScriptedChatClient([{ text: "Hello." }]);

describe("@Agent", () => {
  it("records the declaration in metadata and a subclass inherits it", () => {
    expect(declaredAgentOf(SupportAgent)).toMatchObject({
      name: "support",
      functionGroups: ["orders"],
      maxIterations: 4,
    });
    class Derived extends SupportAgent {}
    expect(declaredAgentOf(Derived)?.name).toBe("support");
    expect(declaredAgentOf(class Plain {})).toBeUndefined();
  });

  it("checks the declaration when the class is decorated, naming the class", () => {
    expect(() => {
      @Agent({ name: "", instructions: "" })
      class Nameless {}
      return Nameless;
    }).toThrow("@Agent on Nameless: option 'name' must be a non-empty string (got \"\").");
    expect(() => {
      @Agent({ name: "x", instructions: "", maxIterations: 0 })
      class ZeroTurns {}
      return ZeroTurns;
    }).toThrow("@Agent on ZeroTurns: option 'maxIterations' must be an integer of at least 1 (got 0).");
    expect(() => {
      @Agent({ name: "x", instructions: "", resilience: { retry: { maxAttempts: 0 } } })
      class BadRetry {}
      return BadRetry;
    }).toThrow("@Agent on BadRetry: option 'resilience.retry.maxAttempts' must be an integer of at least 1 (got 0).");
    expect(() => {
      @Agent({ name: "x", instructions: "", chatClient: hello() } as never)
      class WithModel {}
      return WithModel;
    }).toThrow(/@Agent on WithModel: `chatClient` is not part of a declaration; pass it when the agent is created/);
    expect(() => {
      @Agent({ name: "x", instructions: "", maxTurns: 3 } as never)
      class Typo {}
      return Typo;
    }).toThrow(/^@Agent on Typo: unknown option 'maxTurns'\. Known options: name, instructions, /);
  });
});

describe("declared agents in the factory", () => {
  it("factory.createAgent(SupportAgent, { chatClient }) builds the declared agent with its tools and options", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().addAgents(SupportAgent).buildAgentFactory();
    const model = hello();
    const agent = factory.createAgent(SupportAgent, { chatClient: model });
    expect(agent.name).toBe("support");
    expect(agent.description).toBe("Answers order questions.");
    const result = await agent.run("hi");
    expect(result.status).toBe("completed");
    expect(model.requests[0]!.messages[0]).toEqual({ role: "system", content: "You help with orders." });
    expect(offered(model.requests[0])).toEqual(["cancelOrder", "lookupOrder", "refund", "updateContact"]);
  });

  it("overrides replace declared options for one agent; the declaration is unchanged", async () => {
    const factory = kitBuilder().addAgents(SupportAgent).buildAgentFactory();
    const step = (_request: unknown, n: number) => ({
      toolCalls: [{ name: "lookupOrder", arguments: { orderId: `o${n}` } }],
    });
    const agent = factory.createAgent(SupportAgent, {
      chatClient: new ScriptedChatClient([step, step, step, step]),
      maxIterations: 2,
    });
    expect((await agent.run("loop")).iterations).toBe(2);
    expect(declaredAgentOf(SupportAgent)?.maxIterations).toBe(4);
  });

  it("usingChatClient supplies the model to every agent unless createAgent passes one; without either the error says what to do", async () => {
    const shared = new ScriptedChatClient([{ text: "one" }, { text: "two" }]);
    const factory = kitBuilder().usingChatClient(shared).addAgents(SupportAgent, BillingAgent).buildAgentFactory();
    await factory.createAgent(BillingAgent).run("hi");
    expect(shared.requests).toHaveLength(1);
    const own = hello();
    await factory.createAgent(BillingAgent, { chatClient: own }).run("hi");
    expect([shared.requests.length, own.requests.length]).toEqual([1, 1]);
    expect((await factory.createAgent({ name: "adhoc", instructions: "" }).run("x")).text).toBe("two");

    const bare = kitBuilder().buildAgentFactory();
    expect(() => bare.createAgent(SupportAgent)).toThrow(
      "factory.createAgent: agent 'support' has no chat client: pass { chatClient } or set one for the factory with usingChatClient(client).",
    );
    expect(() => kitBuilder().usingChatClient({} as ChatClient)).toThrow(/usingChatClient: pass a ChatClient/);
  });

  it("lists registered agents and builds them by name", async () => {
    const factory = kitBuilder()
      .usingChatClient(hello())
      .addAgents(SupportAgent, BillingAgent, SupportAgent)
      .buildAgentFactory();
    expect(factory.agents.map((a) => [a.name, a.description, a.target])).toEqual([
      ["support", "Answers order questions.", SupportAgent],
      ["billing", undefined, BillingAgent],
    ]);
    expect(factory.createAgent("billing").name).toBe("billing");
    expect(() => factory.createAgent("helpdesk")).toThrow(
      "factory.createAgent: no agent is named 'helpdesk' (registered: 'support', 'billing').",
    );
  });

  it("refuses classes without @Agent", () => {
    class Plain {}
    expect(() => kitBuilder().addAgents(Plain)).toThrow(
      "addAgents: Plain is not a declared agent. Decorate it with @Agent({ name, instructions, ... }).",
    );
    expect(() => kitBuilder().buildAgentFactory().createAgent(Plain, { chatClient: hello() })).toThrow(
      /factory.createAgent: Plain is not a declared agent/,
    );
  });

  it("two agents with one name fail the build (NW008), naming both classes", () => {
    @Agent({ name: "support", instructions: "Another support agent." })
    class HelpdeskAgent {}
    const build = () => kitBuilder().addAgents(SupportAgent, HelpdeskAgent).buildAgentFactory();
    expect(build).toThrow(AgentFrameworkBuildError);
    expect(build).toThrow(
      "NW008 Two agents are named 'support': SupportAgent and HelpdeskAgent. Give one a different `name` in @Agent",
    );
    try {
      build();
    } catch (error) {
      expect((error as AgentFrameworkBuildError).diagnostics).toContainEqual(
        expect.objectContaining({ id: "NW008", severity: "error", agent: "support" }),
      );
    }
  });

  it("a declared group or class that matches nothing fails the build (NW007)", () => {
    @Agent({ name: "typo", instructions: "", functionGroups: ["order", "crm"] })
    class TypoAgent {}
    expect(() => kitBuilder().addAgents(TypoAgent).buildAgentFactory()).toThrow(
      "NW007 Agent 'typo' (TypoAgent): function group 'order' matches no tool class (groups on offer: billing, crm, orders). Fix the name in @Agent, or add the tool class with addAgentFunctions.",
    );
    expect(Object.keys(BUILD_DIAGNOSTIC_IDS)).toEqual(expect.arrayContaining(["NW007", "NW008"]));
  });
});
