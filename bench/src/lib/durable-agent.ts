import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, type ChatClient, createToolInvoker } from "@needlework/core";
import { type Agent, type AgentStore, createAgent } from "@needlework/workflows";
import { container } from "tsyringe";
import { z } from "zod";

/** Tool calls in the one round of a durable-runs benchmark run. */
export const DURABLE_CALLS = 10;

@AgentFunctionGroup()
class BenchCrm {
  @AgentFunction({
    description: "Creates or updates a contact.",
    input: z.object({ id: z.string() }),
    idempotent: true,
  })
  upsert({ id }: { id: string }) {
    return { id, ok: true };
  }
}

/** A model with no latency: one round of DURABLE_CALLS upserts, then an answer. */
const model: ChatClient = {
  async complete({ messages }) {
    if (messages.some((m) => m.role === "tool")) return { message: { content: "Done." } };
    return {
      message: {
        toolCalls: Array.from({ length: DURABLE_CALLS }, (_, i) => ({
          id: `call_${i}`,
          name: "upsert",
          arguments: { id: `c${i}` },
        })),
      },
    };
  },
};

/** The benchmark's agent, journaling into `store` when one is given. */
export function durableAgent(store?: AgentStore): Agent {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [BenchCrm] });
  return createAgent(
    { invoker },
    {
      name: "bench-crm",
      instructions: "Sync.",
      chatClient: model,
      maxConcurrency: DURABLE_CALLS,
      ...(store ? { store } : {}),
    },
  );
}
