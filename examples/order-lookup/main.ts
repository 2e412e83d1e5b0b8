import "reflect-metadata";
import { createToolInvoker, formatToolOutcome } from "@needlework/core";
import { container } from "tsyringe";
import { OrderTools } from "./order-tools.js";

/** Invokes the order tool the way a model would, and prints what the model reads. */
export async function runOrderLookup(print: (line: string) => void = console.log): Promise<void> {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [OrderTools] });
  const calls = [
    { name: "getOrderStatus", arguments: '{"orderId":"ORD-12345"}' },
    { name: "getOrderStatus", arguments: '{"orderId":"ORD-999"}' },
    { name: "getOrderStatus", arguments: '{"orderId": 42}' },
    { name: "getOrderStatuss", arguments: "{}" },
  ];
  for (const call of calls) {
    const outcome = await invoker.invoke(call);
    print(`${call.name}(${call.arguments})\n  -> ${formatToolOutcome(outcome, { omitMetadata: true })}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runOrderLookup();
