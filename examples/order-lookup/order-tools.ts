import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { z } from "zod";

/** A tiny in-memory order store, injected into the tools by tsyringe. */
export class OrderRepository {
  private readonly orders = new Map([
    ["ORD-12345", { id: "ORD-12345", status: "shipped", carrier: "DHL" }],
    ["ORD-777", { id: "ORD-777", status: "processing", carrier: null }],
  ]);

  find(id: string) {
    return this.orders.get(id);
  }
}

@AgentFunctionGroup()
export class OrderTools {
  constructor(private readonly orders: OrderRepository) {}

  @AgentFunction({
    description: "Looks up an order by ID.",
    input: z.object({ orderId: z.string().describe("Order id, like 'ORD-12345'.") }),
  })
  getOrderStatus({ orderId }: { orderId: string }) {
    if (!orderId.trim()) return ToolResult.fail("orderId is required", { suggestion: "Pass a non-empty order ID like 'ORD-12345'." });
    const order = this.orders.find(orderId);
    if (!order) {
      return ToolResult.fail(`Order '${orderId}' not found`, {
        code: "ORDER_NOT_FOUND",
        suggestion: "Verify the ID with the customer or list recent orders.",
        transient: false,
      });
    }
    return ToolResult.ok({ orderId: order.id, status: order.status, carrier: order.carrier });
  }
}
