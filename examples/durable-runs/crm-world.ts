import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  createToolInvoker,
  type ToolContext,
} from "@needlework/core";
import { type AgentStore, createAgent, type Agent } from "@needlework/workflows";
import type pg from "pg";
import { container } from "tsyringe";
import { z } from "zod";

/**
 * The downstream CRM the tools call: a table of effects keyed by idempotencyKey, as a real API
 * with idempotency keys keeps them. A repeated key counts an attempt instead of a second effect.
 */
export interface CrmWorld {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** Random delay in ms (tools and model take time, so kills land mid-run). */
  readonly delay: () => number;
  /** Told when a tool call starts (+1) and ends (-1). */
  readonly onInFlight: (delta: number) => void;
}

let world: CrmWorld | undefined;

/** Points the tools at the CRM (once per process: the tools are plain classes without injection). */
export function useCrmWorld(value: CrmWorld): void {
  world = value;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** Creates the effects table. */
export async function createEffectsTable(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".effects (
    idempotency_key text PRIMARY KEY, run_id text NOT NULL, tool text NOT NULL, target text NOT NULL,
    attempts integer NOT NULL DEFAULT 1)`);
}

async function effect(ctx: ToolContext, tool: string, target: string): Promise<void> {
  const crm = world!;
  crm.onInFlight(1);
  try {
    await sleep(crm.delay(), ctx.signal);
    await crm.pool.query(
      `INSERT INTO "${crm.schema}".effects (idempotency_key, run_id, tool, target) VALUES ($1, $2, $3, $4)
       ON CONFLICT (idempotency_key) DO UPDATE SET attempts = effects.attempts + 1`,
      [ctx.idempotencyKey, ctx.runId, tool, target],
    );
    // The response travels back after the effect: a kill here leaves an applied effect with no recorded outcome.
    await sleep(crm.delay(), ctx.signal);
  } finally {
    crm.onInFlight(-1);
  }
}

const Contact = z.object({ contactId: z.string().describe("The contact's id.") });

@AgentFunctionGroup()
export class CrmTools {
  @AgentFunction({ description: "Looks up a contact.", input: Contact, readOnly: true })
  async lookupContact({ contactId }: z.infer<typeof Contact>, ctx: ToolContext) {
    await sleep(world!.delay(), ctx.signal);
    return { contactId, name: `Contact ${contactId}` };
  }

  @AgentFunction({ description: "Creates or updates the contact in the CRM.", input: Contact, idempotent: true })
  async upsertContact({ contactId }: z.infer<typeof Contact>, ctx: ToolContext) {
    await effect(ctx, "upsertContact", contactId);
    return { contactId, upserted: true };
  }

  @AgentFunction({ description: "Logs a sync activity on the contact.", input: Contact, idempotent: true })
  async logActivity({ contactId }: z.infer<typeof Contact>, ctx: ToolContext) {
    await effect(ctx, "logActivity", contactId);
    return { contactId, logged: true };
  }

  @AgentFunction({
    description: "Sends the welcome email. Not idempotent: the mail server sends every request.",
    input: Contact,
  })
  async sendWelcomeEmail({ contactId }: z.infer<typeof Contact>, ctx: ToolContext) {
    await effect(ctx, "sendWelcomeEmail", contactId);
    return { contactId, sent: true };
  }
}

/** A scripted model: look up and upsert, then email and log, then answer (honestly). */
export function crmModel(delay: () => number): ChatClient {
  return {
    async complete({ messages }) {
      await sleep(delay());
      const contactId = /c\d+/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[0] ?? "c0";
      const turns = messages.filter((m) => m.role === "assistant").length;
      const call = (name: string) => ({ id: `${name}_${turns}`, name, arguments: { contactId } });
      if (turns === 0) return { message: { toolCalls: [call("lookupContact"), call("upsertContact")] } };
      if (turns === 1) return { message: { toolCalls: [call("sendWelcomeEmail"), call("logActivity")] } };
      const unknown = messages.some((m) => m.role === "tool" && m.content.includes("OUTCOME_UNKNOWN"));
      const text = unknown
        ? `Contact ${contactId} upserted and logged; the welcome email's outcome is unknown, ` +
          "so check the mail log before resending."
        : `Contact ${contactId} synced.`;
      return { message: { content: text } };
    },
  };
}

/** The CRM agent over `store`. */
export function crmAgent(store: AgentStore, delay: () => number): Agent {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [CrmTools] });
  return createAgent(
    { invoker },
    {
      name: "crm-sync",
      instructions: "Sync the contact to the CRM.",
      chatClient: crmModel(delay),
      store,
      guardrail: false,
    },
  );
}
