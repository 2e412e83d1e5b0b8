import { AgentFunction, AgentFunctionGroup, ToolResult, type ToolContext } from "@needlework/core";
import { z } from "zod";

const ORDERS = new Map([["ORD-1", "shipped"]]);

/** Tools for the adapter tests; no constructor dependencies. */
@AgentFunctionGroup()
export class ShopTools {
  @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string().min(1).describe("Order id, like 'ORD-1'.") }) })
  getOrderStatus({ orderId }: { orderId: string }, ctx: ToolContext) {
    const status = ORDERS.get(orderId);
    if (!status) return ToolResult.fail(`Order '${orderId}' not found`, { code: "ORDER_NOT_FOUND", suggestion: "Verify the ID with the customer." });
    return ToolResult.ok({ orderId, status, runId: ctx.runId });
  }

  @AgentFunction({ description: "Always throws an error with a secret in its message.", input: z.object({}) })
  explode(): never {
    throw new TypeError("secret database password is hunter2");
  }

  @AgentFunction({ description: "Waits until the call is cancelled.", input: z.object({}) })
  waitForCancel(_args: Record<string, never>, ctx: ToolContext): Promise<never> {
    waitStarted?.();
    return new Promise((_resolve, reject) =>
      ctx.signal.addEventListener(
        "abort",
        () => {
          cancellations.push(ctx.signal.reason);
          cancelled?.(ctx.signal.reason);
          reject(ctx.signal.reason);
        },
        { once: true },
      ),
    );
  }
}

/** The abort reasons `waitForCancel` saw, in order. */
export const cancellations: unknown[] = [];

let cancelled: ((reason: unknown) => void) | undefined;
/** Resolves with the abort reason the next time `waitForCancel` is cancelled. */
export function whenWaitCancelled(): Promise<unknown> {
  return new Promise((resolve) => {
    cancelled = (reason) => {
      cancelled = undefined;
      resolve(reason);
    };
  });
}

let waitStarted: (() => void) | undefined;
/** Resolves when `waitForCancel` has started. */
export function whenWaitStarts(): Promise<void> {
  return new Promise((resolve) => {
    waitStarted = () => {
      waitStarted = undefined;
      resolve();
    };
  });
}
