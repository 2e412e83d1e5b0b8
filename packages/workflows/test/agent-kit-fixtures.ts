import { AgentFunction, AgentFunctionGroup, type ToolContext, ToolError } from "@needlework/core";
import { container } from "tsyringe";
import { z } from "zod";
import { usingAgentFramework } from "../src/builder/index.js";

/** Every tool body call, in order: `tool:argsJSON`. Cleared by {@link kitBuilder}. */
export const kitLog: string[] = [];
/** Per-tool behaviour overrides for the kit tools; cleared by {@link kitBuilder}. */
export const kitBehaviour = new Map<string, (args: Record<string, unknown>, ctx: ToolContext) => unknown>();

function body(tool: string, args: Record<string, unknown>, ctx: ToolContext): unknown {
  kitLog.push(`${tool}:${JSON.stringify(args)}`);
  const behaviour = kitBehaviour.get(tool);
  return behaviour ? behaviour(args, ctx) : { tool, ...args };
}

@AgentFunctionGroup("orders")
export class OrderTools {
  @AgentFunction({ description: "Looks up an order.", input: z.object({ orderId: z.string().describe("Order id.") }) })
  lookupOrder(args: Record<string, unknown>, ctx: ToolContext) {
    return body("lookupOrder", args, ctx);
  }

  @AgentFunction({ description: "Cancels an order.", input: z.object({ orderId: z.string().describe("Order id.") }) })
  cancelOrder(args: Record<string, unknown>, ctx: ToolContext) {
    return body("cancelOrder", args, ctx);
  }
}

/** In two groups at once. */
@AgentFunctionGroup(["orders", "billing"])
export class RefundTools {
  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    idempotent: true,
  })
  refund(args: Record<string, unknown>, ctx: ToolContext) {
    return body("refund", args, ctx);
  }
}

@AgentFunctionGroup({ groups: ["billing"], roundPolicy: "all-or-nothing" })
export class BillingTools {
  @AgentFunction({
    description: "Charges a card.",
    input: z.object({ amount: z.number().describe("Amount.") }),
    compensate: "voidCharge",
  })
  charge(args: Record<string, unknown>, ctx: ToolContext) {
    return body("charge", args, ctx);
  }

  @AgentFunction({ description: "Sends an invoice.", input: z.object({ to: z.string().describe("Recipient.") }) })
  sendInvoice(args: Record<string, unknown>, ctx: ToolContext) {
    body("sendInvoice", args, ctx);
    throw new ToolError("mailbox full", { code: "MAILBOX_FULL" });
  }
}

@AgentFunctionGroup("crm")
export class ContactTools {
  @AgentFunction({
    description: "Updates a contact.",
    input: z.object({ contactId: z.string().describe("Contact id.") }),
  })
  updateContact(args: Record<string, unknown>, ctx: ToolContext) {
    return body("updateContact", args, ctx);
  }
}

/** In no group: only agents that list the class (or name no tools at all) get these. */
@AgentFunctionGroup()
export class AdminTools {
  @AgentFunction({
    description: "Voids a charge.",
    input: z.object({ tool: z.string().describe("Tool."), amount: z.number().describe("Amount.") }),
  })
  voidCharge(args: Record<string, unknown>, ctx: ToolContext) {
    return body("voidCharge", args, ctx);
  }

  @AgentFunction({ description: "Deletes every order.", input: z.object({}) })
  deleteEverything(args: Record<string, unknown>, ctx: ToolContext) {
    return body("deleteEverything", args, ctx);
  }
}

export const KIT_CLASSES = [OrderTools, RefundTools, BillingTools, ContactTools, AdminTools] as const;

/** A builder over every kit tool in a fresh child container; resets the log and behaviours. */
export function kitBuilder() {
  kitLog.length = 0;
  kitBehaviour.clear();
  return usingAgentFramework(container.createChildContainer()).addAgentFunctions(...KIT_CLASSES);
}

/** The names of the tools offered in a request. */
export const offered = (request: { tools: readonly { name: string }[] } | undefined): string[] =>
  (request?.tools ?? []).map((t) => t.name).sort();
