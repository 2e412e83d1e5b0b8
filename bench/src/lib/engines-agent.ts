import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, type ChatClient, createToolInvoker } from "@needlework/core";
import type { DurableExecutionFactory } from "@needlework/durable";
import { type Agent, type AgentStore, createAgent } from "@needlework/workflows";
import { container } from "tsyringe";
import { z } from "zod";

/** Tool calls in one engines-bench run: two rounds of four. */
export const ENGINE_CALLS = 8;

/** A customer as a CRM answers: an object with a list of ten orders (about 2 KB of JSON). */
function customer(id: string) {
  const n = Number(id.replace(/\D/g, "")) || 0;
  return {
    id,
    name: `Customer ${n}`,
    email: `customer${n}@example.com`,
    tier: n % 3 === 0 ? "gold" : "standard",
    address: { street: `${n} Market Street`, city: "Springfield", postcode: `${10_000 + n}`, country: "US" },
    orders: Array.from({ length: 10 }, (_, i) => ({
      orderId: `${id}-o${i}`,
      placedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
      total: Math.round((n + 1) * (i + 3) * 7.3) / 10,
      currency: "USD",
      status: i % 4 === 0 ? "refunded" : "paid",
      lines: [{ sku: `sku-${i}`, quantity: 1 + (i % 3) }],
    })),
  };
}

const Id = z.object({ id: z.string() });

@AgentFunctionGroup()
class BenchCustomers {
  @AgentFunction({ description: "Looks up a customer and their orders.", input: Id, readOnly: true })
  lookup({ id }: z.infer<typeof Id>) {
    return customer(id);
  }

  @AgentFunction({ description: "Creates or updates a customer.", input: Id, idempotent: true })
  upsert({ id }: z.infer<typeof Id>) {
    return { ...customer(id), updated: true };
  }

  @AgentFunction({ description: "Refunds the customer's last order. Not idempotent.", input: Id })
  refund({ id }: z.infer<typeof Id>) {
    const { orders } = customer(id);
    return { refunded: orders.at(-1), balance: orders.reduce((sum, o) => sum + o.total, 0) };
  }
}

/** A model with no latency: two rounds of four calls (reads, an upsert, a refund), then an answer. */
const model: ChatClient = {
  async complete({ messages }) {
    const turns = messages.filter((m) => m.role === "assistant").length;
    if (turns >= 2) return { message: { content: "Done." } };
    const call = (name: string, i: number) => ({
      id: `${name}_${turns}_${i}`,
      name,
      arguments: { id: `c${turns * 4 + i}` },
    });
    return {
      message: { toolCalls: [call("lookup", 0), call("lookup", 1), call("upsert", 2), call("refund", 3)] },
    };
  },
};

/** The engines bench's agent: journaling into `store`, or running inside an engine's `execution`. */
export function enginesAgent(options: { store?: AgentStore; execution?: DurableExecutionFactory }): Agent {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [BenchCustomers] });
  return createAgent(
    { invoker },
    {
      name: "bench-engines",
      instructions: "Settle the customers.",
      chatClient: model,
      maxConcurrency: 4,
      ...(options.store ? { store: options.store } : {}),
      ...(options.execution ? { execution: options.execution } : {}),
    },
  );
}
