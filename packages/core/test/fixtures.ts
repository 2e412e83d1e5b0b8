import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, ToolResult, type ToolContext } from "../src/index.js";

export class OrderRepository {
  private readonly orders = new Map([["ORD-1", { id: "ORD-1", status: "shipped" }]]);
  find(id: string): { id: string; status: string } | undefined {
    return this.orders.get(id);
  }
}

@AgentFunctionGroup()
export class OrderTools {
  constructor(private readonly orders: OrderRepository) {}

  @AgentFunction({
    description: "Looks up an order by ID.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
  })
  getOrderStatus({ orderId }: { orderId: string }) {
    if (!orderId.trim())
      return ToolResult.fail("orderId is required", { suggestion: "Pass a non-empty order ID like 'ORD-12345'." });
    const order = this.orders.find(orderId);
    if (!order)
      return ToolResult.fail(`Order '${orderId}' not found`, {
        code: "ORDER_NOT_FOUND",
        suggestion: "Verify the ID with the customer.",
        transient: false,
      });
    return ToolResult.ok(order.status);
  }

  @AgentFunction({ description: "Always throws.", input: z.object({}) })
  explode(): never {
    throw new TypeError("secret database password is hunter2");
  }

  @AgentFunction({
    name: "echo_context",
    description: "Echoes its context.",
    input: z.object({ value: z.number().int() }),
    idempotent: true,
    tags: ["debug"],
  })
  echo(args: { value: number }, ctx: ToolContext) {
    return {
      value: args.value,
      attempt: ctx.attempt,
      callId: ctx.callId,
      key: ctx.idempotencyKey,
      requestId: ctx.items.get("requestId") ?? null,
    };
  }
}
