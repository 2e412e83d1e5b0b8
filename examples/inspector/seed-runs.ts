import "reflect-metadata";
import { randomBytes } from "node:crypto";
import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { type Agent, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import type { AgentStore } from "@needlework/workflows/durable";
import { container } from "tsyringe";
import { z } from "zod";
import { createLiveRun } from "../live-run/live-run-agent.js";

/** The payments side: refunds wait for a person's approval. */
export class Payments {
  readonly refunded: string[] = [];
  refund(orderId: string, amountCents: number) {
    this.refunded.push(orderId);
    return { refundId: `RF-${orderId}`, amountCents };
  }
}

/** The CRM's contacts: a merge is refused while another merge holds the contact (twice, then free). */
export class Contacts {
  mergeAttempts = 0;
  merged = 0;
  /** While set, creating a follow-up hangs (the worker is about to die). */
  hang: Promise<void> | undefined;
  /** Called when a follow-up starts hanging: the call is under way (and journaled). */
  onHang: (() => void) | undefined;
  followUps = 0;
}

const RefundInput = z.object({
  orderId: z.string().describe("The order to refund, like ORD-1042."),
  amountCents: z.int().positive().describe("The amount to refund, in cents."),
});
const ContactInput = z.object({ contactId: z.string().describe("The contact's id, like C-7.") });

@AgentFunctionGroup({ inject: [Payments] })
export class RefundTools {
  constructor(private readonly payments: Payments) {}

  @AgentFunction({ description: "Refunds an order.", input: RefundInput, requiresApproval: true })
  refund({ orderId, amountCents }: z.infer<typeof RefundInput>) {
    return this.payments.refund(orderId, amountCents);
  }
}

@AgentFunctionGroup({ inject: [Contacts] })
export class ContactTools {
  constructor(private readonly contacts: Contacts) {}

  @AgentFunction({ description: "Merges a duplicate contact into its original.", input: ContactInput })
  mergeContacts({ contactId }: z.infer<typeof ContactInput>) {
    if (++this.contacts.mergeAttempts <= 2)
      return ToolResult.fail(`Contact ${contactId} is locked by another merge.`, {
        code: "CONFLICT",
        suggestion: "Try again once the other merge is done.",
      });
    this.contacts.merged++;
    return { merged: contactId };
  }

  @AgentFunction({
    description: "Creates a follow-up task for a contact.",
    input: ContactInput,
    idempotent: true,
  })
  async createFollowUp({ contactId }: z.infer<typeof ContactInput>) {
    if (this.contacts.hang) {
      this.contacts.onHang?.();
      await this.contacts.hang;
    }
    this.contacts.followUps++;
    return { taskId: `T-${contactId}` };
  }
}

/** What {@link seedRuns} wrote, and the agents to act on those runs from the inspector. */
export interface SeededRuns {
  /** The CRM sync of the live run page: a refused write, a retried one, a correction. */
  readonly sync: string;
  /** A refund of ORD-1042 waiting for a person's approval. */
  readonly refund: string;
  /** A merge that failed twice with CONFLICT: the run stopped, the call went to the dead letters. */
  readonly poisoned: string;
  /** A follow-up whose worker died mid-call: no one holds it any more. */
  readonly interrupted: string;
  /** Pass to `startInspector({ agents })`: approve, resume and replay act through them. */
  readonly agents: readonly Agent[];
  readonly payments: Payments;
  readonly contacts: Contacts;
}

/**
 * Writes four runs into `store`, through the public API, the way an application's agents would: the
 * CRM sync of the live run page, a refund that waits for approval, a merge stopped as poison (a dead
 * letter), and a follow-up whose worker died mid-call (an interrupted run).
 *
 * @example
 * ```ts
 * const { refund, agents } = await seedRuns(new InMemoryRunStore());
 * ```
 */
export async function seedRuns(store: AgentStore): Promise<SeededRuns> {
  const { agent, input } = createLiveRun({ wordDelayMs: 0, toolDelayMs: 0, retryDelayMs: 0 }, store);
  const sync = await agent.run(input);

  const payments = new Payments();
  const contacts = new Contacts();
  const scope = container.createChildContainer();
  scope.registerInstance(Payments, payments);
  scope.registerInstance(Contacts, contacts);
  const factory = usingAgentFramework(scope)
    .addAgentFunctions(RefundTools, ContactTools)
    .usingResilience({ retry: false })
    .usingToolResultMiddleware()
    .buildAgentFactory();
  // Signs approval checkpoints: in your app, a secret from your configuration.
  const checkpointSecret = process.env["CHECKPOINT_SECRET"] ?? randomBytes(32).toString("hex");

  const support = factory.createAgent({
    name: "support",
    instructions: "Handle refund requests.",
    chatClient: new ScriptedChatClient([
      { toolCalls: [{ name: "refund", arguments: { orderId: "ORD-1042", amountCents: 4999 } }] },
      { text: "The refund of ORD-1042 is done." },
    ]),
    store,
    checkpointSecret,
  });
  const refund = await support.run("Refund order ORD-1042: the parcel arrived broken.");

  const merger = factory.createAgent({
    name: "crm-merge",
    instructions: "Merge duplicate contacts.",
    chatClient: new ScriptedChatClient([
      { toolCalls: [{ name: "mergeContacts", arguments: { contactId: "C-7" } }] },
      { toolCalls: [{ name: "mergeContacts", arguments: { contactId: "C-7" } }] },
      { text: "C-7 could not be merged." },
    ]),
    store,
    poisonThreshold: 2,
  });
  const poisoned = await merger.run("Merge the duplicate C-7 into C-8.");

  // A worker that dies mid-call: the run stays journaled, unended, and its lease is given up.
  const followUp = factory.createAgent({
    name: "crm-follow-up",
    instructions: "Create follow-up tasks.",
    chatClient: new ScriptedChatClient([
      { toolCalls: [{ name: "createFollowUp", arguments: { contactId: "C-8" } }] },
      { text: "Follow-up T-C-8 created." },
    ]),
    store,
  });
  // The dead worker's call never returns (a pending promise keeps no process alive).
  contacts.hang = new Promise<void>(() => undefined);
  const hanging = new Promise<void>((resolve) => (contacts.onHang = resolve));
  const killed = new AbortController();
  const interruptedId = `run_follow_up_${Date.now().toString(36)}`;
  const cut = followUp.run("Create a follow-up for C-8.", { signal: killed.signal, runId: interruptedId });
  // Killed once the call is under way (its start journaled), not after a guessed time.
  await Promise.race([hanging, cut.catch(() => undefined)]);
  killed.abort(new DOMException("worker killed", "AbortError"));
  await cut.catch(() => undefined);
  contacts.hang = undefined;
  contacts.onHang = undefined;

  return {
    sync: sync.runId,
    refund: refund.runId,
    poisoned: poisoned.runId,
    interrupted: interruptedId,
    agents: [support, merger, followUp],
    payments,
    contacts,
  };
}
