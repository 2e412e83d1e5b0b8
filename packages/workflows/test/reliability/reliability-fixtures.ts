import { getEventListeners } from "node:events";
import { AgentFunction, AgentFunctionGroup, type ToolContext } from "@needlework/core";
import { container } from "tsyringe";
import { z } from "zod";
import { type AgentFactory, type ResilienceOptions, usingAgentFramework } from "../../src/index.js";
import { type ChaosOptions, chaosPlugin, type ChaosPlugin } from "../../src/testing/chaos.js";

type Args = Record<string, unknown>;
/** What a tool does; the default returns its arguments (so a forward call's data is its undo's arguments). */
export type Behaviour = (args: Args, ctx: ToolContext) => unknown;

/**
 * The outside world of the reliability tools: counts every body execution per tool and call id,
 * which is what "ran twice" means for a side effect.
 */
export class World {
  readonly runs = new Map<string, number>();
  readonly order: string[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  /** Keep the call order (off in the soak, where only counts matter). */
  keepOrder = true;

  on(tool: string, behaviour: Behaviour): this {
    this.behaviours.set(tool, behaviour);
    return this;
  }

  call(tool: string, args: Args, ctx: ToolContext): unknown {
    const key = `${tool}:${ctx.callId}`;
    this.runs.set(key, (this.runs.get(key) ?? 0) + 1);
    if (this.keepOrder) this.order.push(key);
    const behaviour = this.behaviours.get(tool);
    return behaviour ? behaviour(args, ctx) : { ...args };
  }

  /** Body executions of `tool` for `callId`. */
  count(tool: string, callId: string): number {
    return this.runs.get(`${tool}:${callId}`) ?? 0;
  }

  /** The largest number of body executions of `tool` for any one call id. */
  maxPerCall(tool: string): number {
    let max = 0;
    for (const [key, n] of this.runs) if (key.startsWith(`${tool}:`) && n > max) max = n;
    return max;
  }

  /** Body executions of `tool` over all calls. */
  total(tool: string): number {
    let sum = 0;
    for (const [key, n] of this.runs) if (key.startsWith(`${tool}:`)) sum += n;
    return sum;
  }
}

@AgentFunctionGroup()
export class StoreTools {
  constructor(private readonly world: World) {}

  @AgentFunction({
    description: "Looks a record up (safe to repeat).",
    input: z.object({ id: z.string() }),
    idempotent: true,
  })
  lookup(args: Args, ctx: ToolContext) {
    return this.world.call("lookup", args, ctx);
  }

  @AgentFunction({
    description: "Charges a customer (not idempotent).",
    input: z.object({ id: z.string(), amount: z.number() }),
  })
  charge(args: Args, ctx: ToolContext) {
    return this.world.call("charge", args, ctx);
  }

  @AgentFunction({
    description: "Refunds an order (needs approval).",
    input: z.object({ orderId: z.string(), amount: z.number() }),
    requiresApproval: true,
  })
  refund(args: Args, ctx: ToolContext) {
    return this.world.call("refund", args, ctx);
  }

  @AgentFunction({
    description: "Refunds a small amount (needs approval; safe to repeat).",
    input: z.object({ orderId: z.string() }),
    requiresApproval: true,
    idempotent: true,
  })
  smallRefund(args: Args, ctx: ToolContext) {
    return this.world.call("smallRefund", args, ctx);
  }
}

@AgentFunctionGroup({ roundPolicy: "all-or-nothing" })
export class TransferTools {
  constructor(private readonly world: World) {}

  @AgentFunction({
    description: "Debits an account.",
    input: z.object({ account: z.string(), amount: z.number() }),
    compensate: "undoDebit",
  })
  debit(args: Args, ctx: ToolContext) {
    return this.world.call("debit", args, ctx);
  }

  @AgentFunction({
    description: "Credits an account.",
    input: z.object({ account: z.string(), amount: z.number() }),
    compensate: "undoCredit",
  })
  credit(args: Args, ctx: ToolContext) {
    return this.world.call("credit", args, ctx);
  }

  @AgentFunction({
    description: "Reserves stock.",
    input: z.object({ account: z.string(), amount: z.number() }),
    compensate: "undoReserve",
  })
  reserve(args: Args, ctx: ToolContext) {
    return this.world.call("reserve", args, ctx);
  }

  @AgentFunction({ description: "Reverses a debit.", input: z.object({ account: z.string(), amount: z.number() }) })
  undoDebit(args: Args, ctx: ToolContext) {
    return this.world.call("undoDebit", args, ctx);
  }

  @AgentFunction({ description: "Reverses a credit.", input: z.object({ account: z.string(), amount: z.number() }) })
  undoCredit(args: Args, ctx: ToolContext) {
    return this.world.call("undoCredit", args, ctx);
  }

  @AgentFunction({
    description: "Releases reserved stock.",
    input: z.object({ account: z.string(), amount: z.number() }),
  })
  undoReserve(args: Args, ctx: ToolContext) {
    return this.world.call("undoReserve", args, ctx);
  }
}

/** Options of {@link buildFactory}. */
export interface FactoryOptions {
  /** A chaos plugin (innermost), or its options. */
  readonly chaos?: ChaosPlugin | ChaosOptions;
  /** `false` leaves resilience out. */
  readonly resilience?: ResilienceOptions | false;
  /** Truncation and redaction after the result middleware (the recommended full order). Default true. */
  readonly shaping?: boolean;
}

/** The recommended full pipeline over the reliability tools, with chaos innermost when given. */
export function buildFactory(world: World, options: FactoryOptions = {}): AgentFactory {
  const child = container.createChildContainer();
  child.register(World, { useValue: world });
  let builder = usingAgentFramework(child).addAgentFunctions(StoreTools, TransferTools);
  if (options.chaos)
    builder = builder.usingPlugin("stats" in options.chaos ? options.chaos : chaosPlugin(options.chaos));
  if (options.resilience !== false) builder = builder.usingResilience(options.resilience ?? {});
  builder = builder.usingToolResultMiddleware();
  if (options.shaping !== false) builder = builder.usingTruncation().usingRedaction();
  return builder.buildAgentFactory();
}

const STATUSES = new Set(["ok", "partial", "error", "timeout", "cancelled", "skipped"]);
const ENVELOPE_KEYS = new Set([
  "status",
  "error_code",
  "retriable",
  "message",
  "suggestion",
  "failures", // a partial result's failed items (core's formatToolOutcome)
  "data",
  "metadata",
]);

/**
 * Problems with a model-facing envelope (empty when it is valid): JSON, a known status, a boolean
 * `retriable`, an error code on failures, string message and suggestion, and metadata naming the
 * tool and call with whole attempts and a latency.
 */
export function envelopeProblems(
  text: string,
  expected: { tool?: string; callId?: string; maxAttempts?: number } = {},
): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [`not JSON: ${text.slice(0, 80)}`];
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return ["not an object"];
  const e = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(e)) if (!ENVELOPE_KEYS.has(key)) problems.push(`unexpected key ${key}`);
  if (typeof e.status !== "string" || !STATUSES.has(e.status)) problems.push(`status ${String(e.status)}`);
  if (typeof e.retriable !== "boolean") problems.push("retriable is not a boolean");
  if (e.status !== "ok" && (typeof e.error_code !== "string" || e.error_code === ""))
    problems.push(`a ${String(e.status)} without error_code`);
  if (e.message !== undefined && typeof e.message !== "string") problems.push("message is not a string");
  if (e.suggestion !== undefined && typeof e.suggestion !== "string") problems.push("suggestion is not a string");
  const m = e.metadata as Record<string, unknown> | undefined;
  if (typeof m !== "object" || m === null) return [...problems, "no metadata"];
  if (typeof m.tool !== "string" || (expected.tool !== undefined && m.tool !== expected.tool))
    problems.push(`metadata.tool ${String(m.tool)}`);
  if (typeof m.call_id !== "string" || (expected.callId !== undefined && m.call_id !== expected.callId))
    problems.push(`metadata.call_id ${String(m.call_id)}`);
  if (typeof m.attempts !== "number" || !Number.isInteger(m.attempts) || m.attempts < 0)
    problems.push(`metadata.attempts ${String(m.attempts)}`);
  else if (expected.maxAttempts !== undefined && m.attempts > expected.maxAttempts)
    problems.push(`metadata.attempts ${m.attempts} above ${expected.maxAttempts}`);
  if (typeof m.latency_ms !== "number" || !(m.latency_ms >= 0))
    problems.push(`metadata.latency_ms ${String(m.latency_ms)}`);
  return problems;
}

/** The abort listeners a signal still holds (Node's own count, which also sees `once` listeners go). */
export function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

/** Collects unhandled rejections while installed. */
export function watchUnhandledRejections(): { readonly seen: unknown[]; stop(): void } {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    seen.push(reason);
  };
  process.on("unhandledRejection", onRejection);
  return { seen, stop: () => process.off("unhandledRejection", onRejection) };
}

/** Lets pending promise callbacks run (no timers are advanced). */
export async function flushMicrotasks(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
