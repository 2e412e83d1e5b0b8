// An agent in a durable execution engine waits for decision records its approval service signs with
// the agent's checkpointSecret. Without one its key is random per process: no record made outside
// it could verify and every approval would wait out its timeout. createAgent refuses that agent.
import type { DurableExecutionFactory } from "@needlework/durable";
import { ScriptedChatClient } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { CrmTools, harness, PaymentTools, ToolWorld } from "../../../test/agent-fixtures.js";
import { usingAgentFramework } from "../../builder/index.js";

const SECRET = "the-agent-checkpoint-secret-of-32-bytes-or-more";
// Never asked: createAgent decides before any run.
const execution: DurableExecutionFactory = () => {
  throw new Error("no run starts in these tests");
};

function thrown(create: () => unknown): unknown {
  try {
    create();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("createAgent({ execution }) without a checkpointSecret", () => {
  it("refuses an agent with a tool that requires approval, naming the agent, the tool and the fix", () => {
    const error = thrown(() => harness().agent([], { execution }));
    expect(error).toBeInstanceOf(TypeError);
    const message = (error as TypeError).message;
    expect(message).toMatch(
      /^createAgent: agent 'test-agent' runs in a durable execution engine \(execution\) and its tool refund requires approval, but has no checkpointSecret/,
    );
    expect(message).toMatch(/random per process/);
    expect(message).toMatch(/Pass checkpointSecret \(at least 32 bytes/);
  });

  it("refuses an agent whose approvalPolicy can ask, even when none of its tools requires approval", () => {
    const error = thrown(() =>
      harness().agent([], { execution, functions: [CrmTools], approvalPolicy: ({ tool }) => tool === "updateContact" }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(
      /agent 'test-agent' runs in a durable execution engine \(execution\) and its approvalPolicy can ask for approval, but has no checkpointSecret/,
    );
  });

  it("refuses it through factory.createAgent too (the tools the agent offers decide)", () => {
    const child = container.createChildContainer();
    child.register(ToolWorld, { useValue: new ToolWorld() });
    const factory = usingAgentFramework(child)
      .addAgentFunctions(CrmTools, PaymentTools)
      .buildAgentFactory({ printDiagnostics: false });
    const base = { name: "billing", instructions: "Bill.", chatClient: new ScriptedChatClient([]), execution };
    expect(() => factory.createAgent(base)).toThrow(
      /agent 'billing' runs in a durable execution engine \(execution\) and its tool refund requires approval/,
    );
    // The same agent offering only tools that need no approval, or given its secret, is created.
    expect(factory.createAgent({ ...base, functions: [CrmTools] }).name).toBe("billing");
    expect(factory.createAgent({ ...base, checkpointSecret: SECRET }).name).toBe("billing");
  });

  it("creates the agent with a checkpointSecret, without an engine, or with nothing that asks for approval", () => {
    const h = harness();
    expect(h.agent([], { execution, checkpointSecret: SECRET }).agent.name).toBe("test-agent");
    expect(h.agent([], { execution, checkpointSecret: new TextEncoder().encode(SECRET) }).agent.name).toBe(
      "test-agent",
    );
    // Without an engine a pause resumes in the process that made it (or with a store and a secret).
    expect(h.agent([]).agent.name).toBe("test-agent");
    expect(h.agent([], { approvalPolicy: () => true }).agent.name).toBe("test-agent");
    expect(h.agent([], { execution, functions: [CrmTools] }).agent.name).toBe("test-agent");
  });
});
