// `import { OrderLookupTools, RefundTools, AdminTools } from "./shop-tools.js"` in the docs: the
// grouped tool classes declared at the top of agents-and-groups.md.
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";

@AgentFunctionGroup("orders")
export class OrderLookupTools {
  @AgentFunction({ description: "Looks up an order.", input: z.object({ orderId: z.string().describe("Order id.") }) })
  lookupOrder({ orderId }: { orderId: string }) {
    return { orderId, status: "shipped" };
  }
}

@AgentFunctionGroup(["orders", "billing"])
export class RefundTools {
  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    idempotent: true,
  })
  refund({ orderId }: { orderId: string }) {
    return { orderId, refunded: true };
  }
}

@AgentFunctionGroup()
export class AdminTools {
  @AgentFunction({ description: "Deletes every order.", input: z.object({}) })
  deleteEverything() {
    return { deleted: true };
  }
}
