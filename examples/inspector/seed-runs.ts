import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import type { AgentStore } from "@needlework/workflows/durable";
import { container } from "tsyringe";
import { z } from "zod";
import { createLiveRun } from "../live-run/live-run-agent.js";

/** The payments side: refunds wait for a person's approval. */
export class Payments {
  refund(orderId: string, amountCents: number) {
    return { refundId: `RF-${orderId}`, amountCents };
  }
}

const RefundInput = z.object({
  orderId: z.string().describe("The order to refund, like ORD-1042."),
  amountCents: z.int().positive().describe("The amount to refund, in cents."),
});

@AgentFunctionGroup({ inject: [Payments] })
export class RefundTools {
  constructor(private readonly payments: Payments) {}

  @AgentFunction({ description: "Refunds an order.", input: RefundInput, requiresApproval: true })
  refund({ orderId, amountCents }: z.infer<typeof RefundInput>) {
    return this.payments.refund(orderId, amountCents);
  }
}

/**
 * Writes two runs into `store`, through the public API, the way an application's agents would: the
 * CRM sync of the live run page (a refused write, a retried one, a correction, an honest answer),
 * and a refund that waits for approval.
 *
 * @example
 * ```ts
 * const { sync, refund } = await seedRuns(new InMemoryRunStore());
 * ```
 */
export async function seedRuns(store: AgentStore): Promise<{ sync: string; refund: string }> {
  const { agent, input } = createLiveRun({ wordDelayMs: 0, toolDelayMs: 0, retryDelayMs: 0 }, store);
  const sync = await agent.run(input);

  const support = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(RefundTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory()
    .createAgent({
      name: "support",
      instructions: "Handle refund requests.",
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "refund", arguments: { orderId: "ORD-1042", amountCents: 4999 } }] },
        { text: "The refund of ORD-1042 is done." },
      ]),
      store,
    });
  const refund = await support.run("Refund order ORD-1042: the parcel arrived broken.");
  return { sync: sync.runId, refund: refund.runId };
}
