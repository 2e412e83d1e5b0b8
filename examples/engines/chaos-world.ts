// Test support (not exported): the world of the engines' chaos tests. Tools write their effects to a
// PostgreSQL table before they answer, so the guarantees are checked from what happened downstream,
// not from the engine's own view of the run.
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  createToolInvoker,
  type ToolContext,
} from "@needlework/core";
import type { DurableExecutionFactory } from "@needlework/durable";
import { type Agent, createAgent } from "@needlework/workflows";
import type pg from "pg";
import { container } from "tsyringe";
import { z } from "zod";

/** Where the tools write, and how long they take (so kills land mid-call). */
export interface ChaosWorld {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The worker's generation (0 for the first process, +1 per restart). */
  readonly generation: number;
  readonly delay: () => number;
}

let world: ChaosWorld | undefined;

/** Points the tools at the effects table (once per process: the tools are plain classes). */
export function useChaosWorld(value: ChaosWorld): void {
  world = value;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates the effects table: one row per execution of a tool body (never deduplicated). */
export async function createEffectsTable(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".effects (
    id bigserial PRIMARY KEY, idempotency_key text NOT NULL, run_id text NOT NULL, tool text NOT NULL,
    target text NOT NULL, generation integer NOT NULL, finished boolean NOT NULL DEFAULT false)`);
}

/** One execution of a tool body: its effect row first, then the time the answer takes to come back. */
async function effect(ctx: ToolContext, tool: string, target: string): Promise<{ effect: number }> {
  const w = world!;
  await sleep(w.delay());
  const { rows } = await w.pool.query<{ id: string }>(
    `INSERT INTO "${w.schema}".effects (idempotency_key, run_id, tool, target, generation) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [ctx.idempotencyKey, ctx.runId, tool, target, w.generation],
  );
  const id = Number(rows[0]!.id);
  // A kill here leaves an applied effect with no recorded outcome: the call was in flight.
  await sleep(w.delay());
  await w.pool.query(`UPDATE "${w.schema}".effects SET finished = true WHERE id = $1`, [id]);
  return { effect: id };
}

const Target = z.object({ target: z.string().describe("The account.") });

@AgentFunctionGroup()
export class ChaosTools {
  @AgentFunction({ description: "Looks up an account.", input: Target, readOnly: true })
  async lookup({ target }: z.infer<typeof Target>, ctx: ToolContext) {
    return { target, ...(await effect(ctx, "lookup", target)) };
  }

  @AgentFunction({ description: "Creates or updates the account.", input: Target, idempotent: true })
  async upsert({ target }: z.infer<typeof Target>, ctx: ToolContext) {
    return { target, ...(await effect(ctx, "upsert", target)) };
  }

  @AgentFunction({ description: "Charges the account. Not idempotent: every request charges.", input: Target })
  async charge({ target }: z.infer<typeof Target>, ctx: ToolContext) {
    return { target, ...(await effect(ctx, "charge", target)) };
  }

  @AgentFunction({ description: "Sends the receipt. Not idempotent.", input: Target })
  async receipt({ target }: z.infer<typeof Target>, ctx: ToolContext) {
    return { target, ...(await effect(ctx, "receipt", target)) };
  }

  @AgentFunction({
    description: "Refunds the account. A person approves it first.",
    input: Target,
    requiresApproval: true,
  })
  async refund({ target }: z.infer<typeof Target>, ctx: ToolContext) {
    return { target, ...(await effect(ctx, "refund", target)) };
  }
}

/** A scripted model: lookup, upsert and charge in one round, then the receipt, then the answer. */
export const chaosModel: ChatClient = {
  async complete({ messages }) {
    const target = /acct-\d+/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[0] ?? "acct-0";
    const turns = messages.filter((m) => m.role === "assistant").length;
    const call = (name: string) => ({ id: `${name}_${turns}`, name, arguments: { target } });
    if (turns === 0) return { message: { toolCalls: [call("lookup"), call("upsert"), call("charge")] } };
    if (turns === 1) return { message: { toolCalls: [call("receipt")] } };
    return { message: { content: `Account ${target} done.` } };
  },
};

/** A scripted model for approvals: the refund (gated), then the receipt, then the answer. */
export const approvalModel: ChatClient = {
  async complete({ messages }) {
    const target = /acct-\d+/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[0] ?? "acct-0";
    const turns = messages.filter((m) => m.role === "assistant").length;
    if (turns === 0) return { message: { toolCalls: [{ id: APPROVAL_CALL, name: "refund", arguments: { target } }] } };
    if (turns === 1) return { message: { toolCalls: [{ id: "receipt_1", name: "receipt", arguments: { target } }] } };
    return { message: { content: `Account ${target} refunded.` } };
  },
};

/** The call id of the approval run's gated call, and the key its decisions are signed with. */
export const APPROVAL_CALL = "refund_0";
export const APPROVAL_SECRET = "needlework-engines-chaos-approval-secret";

/** The chaos agent over an engine's execution (`approval`: the agent whose one call waits for a person). */
export function chaosAgent(execution: DurableExecutionFactory, kind: "chaos" | "approval" = "chaos"): Agent {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [ChaosTools] });
  const chatClient = kind === "chaos" ? chaosModel : approvalModel;
  return createAgent(
    { invoker },
    { name: kind, instructions: "Settle the account.", chatClient, execution, checkpointSecret: APPROVAL_SECRET },
  );
}

/** What a run's workflow returns: each call's key, status and error code, and the effect row its outcome came from. */
export interface ChaosRunResult {
  readonly status: string;
  readonly calls: readonly {
    readonly tool: string;
    readonly key: string;
    readonly status: string;
    readonly errorCode?: string;
    readonly effect?: number;
  }[];
}

/** The account a run works on (from the digits of its id). */
export function targetOf(runId: string): string {
  return `acct-${runId.replace(/\D/g, "").slice(-6) || "0"}`;
}

/** Runs the chaos agent for `runId` and reduces its result to what the checks read. */
export async function runChaos(agent: Agent, runId: string): Promise<ChaosRunResult> {
  const target = targetOf(runId);
  const result = await agent.run(`Settle ${target}.`, { runId });
  // Each tool is called once a run: its tool message (the text the model read) carries the effect row.
  const texts = new Map<string, string>();
  for (const message of result.messages) if (message.role === "tool") texts.set(message.name ?? "", message.content);
  return {
    status: result.status,
    calls: result.calls.map((record) => {
      const effect = /"effect":\s*(\d+)/.exec(texts.get(record.tool) ?? "")?.[1];
      return {
        tool: record.tool,
        key: `${runId}:${record.callId}`,
        status: record.status,
        ...(record.errorCode === undefined ? {} : { errorCode: record.errorCode }),
        ...(effect === undefined ? {} : { effect: Number(effect) }),
      };
    }),
  };
}

/** An effect row as the checks read it. */
interface EffectRow {
  readonly id: string;
  readonly idempotency_key: string;
  readonly run_id: string;
  readonly tool: string;
  readonly target: string;
  readonly generation: number;
  readonly finished: boolean;
}

/** What the checks found: counts and the guarantees broken (empty when all hold). */
export interface ChaosReport {
  readonly runs: number;
  readonly calls: number;
  readonly effects: number;
  readonly outcomeUnknown: number;
  readonly reruns: number;
  /** Worker processes killed between a tool's effect and its answer (their effect rows never finished). */
  readonly midCallKills: number;
  readonly violations: readonly string[];
}

const IDEMPOTENT = new Set(["upsert", "lookup"]);

/**
 * G1-G3 from the effects table and each run's result as every reader sees it (`results`: the
 * result read twice, by two readers): G1 a settled call's outcome is the last execution of its key
 * (nothing ran after it); G2 a non-idempotent key ran at most once, and an idempotent call that ran
 * again kept its key; G3 every run ended once with the same result for every reader, every call has
 * an outcome, every executed key belongs to a call with one.
 */
export async function checkGuarantees(
  pool: pg.Pool,
  schema: string,
  results: ReadonlyMap<string, readonly (ChaosRunResult | undefined)[]>,
  expectedCalls = 4,
): Promise<ChaosReport> {
  const { rows } = await pool.query<EffectRow>(`SELECT * FROM "${schema}".effects ORDER BY id`);
  const byKey = new Map<string, EffectRow[]>();
  for (const row of rows) byKey.set(row.idempotency_key, [...(byKey.get(row.idempotency_key) ?? []), row]);
  const violations: string[] = [];
  let calls = 0;
  let outcomeUnknown = 0;
  let reruns = 0;
  const settledKeys = new Set<string>();
  for (const [runId, readings] of results) {
    const [first, ...others] = readings;
    if (first === undefined) {
      violations.push(`G3: run ${runId} never ended`);
      continue;
    }
    for (const other of others)
      if (JSON.stringify(other) !== JSON.stringify(first)) violations.push(`G3: run ${runId} read differently`);
    if (first.calls.length !== expectedCalls)
      violations.push(`G3: run ${runId} has ${first.calls.length} outcomes, not ${expectedCalls}`);
    for (const call of first.calls) {
      calls++;
      if (call.errorCode === "OUTCOME_UNKNOWN") outcomeUnknown++;
      const { key } = call;
      settledKeys.add(key);
      const executions = byKey.get(key) ?? [];
      if (executions.length > 1) reruns += executions.length - 1;
      if (call.effect !== undefined && Number(executions.at(-1)?.id) !== call.effect)
        violations.push(`G1: ${key} ran again after its outcome was recorded`);
      if (call.status === "ok" && call.effect === undefined) violations.push(`G3: ${key} ok without an effect`);
      if (!IDEMPOTENT.has(call.tool) && executions.length > 1)
        violations.push(`G2: ${key} (not idempotent) ran ${executions.length} times`);
    }
    const targets = new Map<string, Set<string>>();
    for (const row of rows.filter((r) => r.run_id === runId)) {
      const keys = targets.get(row.tool) ?? new Set();
      keys.add(row.idempotency_key);
      targets.set(row.tool, keys);
    }
    for (const [tool, keys] of targets)
      if (keys.size > 1) violations.push(`G2: ${runId} ${tool} ran under ${keys.size} keys`);
  }
  for (const key of byKey.keys()) if (!settledKeys.has(key)) violations.push(`G3: ${key} ran but has no outcome`);
  const midCallKills = new Set(rows.filter((row) => !row.finished).map((row) => row.generation)).size;
  return { runs: results.size, calls, effects: rows.length, outcomeUnknown, reruns, midCallKills, violations };
}
