import { describe, expectTypeOf, it } from "vitest";
import { Agent, type AgentFactory, type AgentRunStatus, ScriptedChatClient } from "../index.js";

declare const factory: AgentFactory;
const chatClient = new ScriptedChatClient([]);

describe("declared agents and factory.createAgent types", () => {
  it("accepts options without a chat client, a declared class with overrides, or a name", () => {
    @Agent({
      name: "support",
      instructions: "Help.",
      functionGroups: ["orders"],
      maxTotalToolCalls: 20,
      tokenBudget: { maxTokens: 10_000 },
    })
    class SupportAgent {}
    expectTypeOf(factory.createAgent({ name: "a", instructions: "" })).toEqualTypeOf<Agent>();
    expectTypeOf(factory.createAgent(SupportAgent, { chatClient, maxIterations: 3 })).toEqualTypeOf<Agent>();
    expectTypeOf(factory.createAgent("support")).toEqualTypeOf<Agent>();
    // @ts-expect-error overrides go with a declared agent, not with options
    factory.createAgent({ name: "a", instructions: "" }, { chatClient });
  });

  it("keeps chatClient out of @Agent and types the hooks", () => {
    // @ts-expect-error the chat client is supplied when the agent is created
    @Agent({ name: "x", instructions: "", chatClient })
    class WithModel {}
    void WithModel;
    @Agent({
      name: "hooked",
      instructions: "",
      onToolCall: ({ record, outcome }) => {
        expectTypeOf(record.tool).toEqualTypeOf<string>();
        expectTypeOf(outcome.status).toEqualTypeOf<"ok" | "partial" | "error" | "timeout" | "cancelled" | "skipped">();
      },
      onIterationEnd: async ({ status }) => {
        expectTypeOf(status).toEqualTypeOf<AgentRunStatus | undefined>();
      },
    })
    class Hooked {}
    void Hooked;
  });

  it("has the new run statuses", () => {
    expectTypeOf<"budget_exhausted">().toMatchTypeOf<AgentRunStatus>();
    expectTypeOf<"stalled">().toMatchTypeOf<AgentRunStatus>();
  });
});
