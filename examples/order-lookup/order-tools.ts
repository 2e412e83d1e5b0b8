import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { z } from "zod";

/** An order as the store keeps it. */
export interface Order {
  readonly id: string;
  readonly status: string;
  readonly carrier: string | null;
}

/** A tiny in-memory order store, injected into the tools by tsyringe. */
export class OrderRepository {
  private readonly orders = new Map<string, Order>([
    ["ORD-12345", { id: "ORD-12345", status: "shipped", carrier: "DHL" }],
    ["ORD-777", { id: "ORD-777", status: "processing", carrier: null }],
  ]);

  // Orders migrated from the old shop are kept as JSON text, and one row was cut short in the
  // migration: reading it throws a SyntaxError, the kind of bug no tool author plans for.
  private readonly migrated = new Map<string, string>([
    ["ORD-1999", '{"id":"ORD-1999","status":"delivered","carrier":"UPS"'],
  ]);

  find(id: string): Order | undefined {
    const row = this.migrated.get(id);
    if (row !== undefined) return JSON.parse(row) as Order;
    return this.orders.get(id);
  }
}

/** The seed's `GetOrderStatus`, in TypeScript. */
// `inject` names the constructor's dependencies, so the class works under any compiler (tsx, esbuild
// and Vite emit no decorator metadata for tsyringe to read).
@AgentFunctionGroup({ inject: [OrderRepository] })
export class OrderTools {
  constructor(private readonly orders: OrderRepository) {}

  @AgentFunction({
    description: "Looks up an order by ID.",
    input: z.object({ orderId: z.string().describe("Order id, like 'ORD-12345'.") }),
  })
  getOrderStatus({ orderId }: { orderId: string }) {
    if (!orderId.trim())
      return ToolResult.fail("orderId is required", { suggestion: "Pass a non-empty order ID like 'ORD-12345'." });
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
