import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  type ToolContext,
  type ToolInvoker,
  type ToolMiddleware,
} from "@needlework/core";
import { container } from "tsyringe";
import { expect } from "vitest";
import { z } from "zod";
import {
  type Agent,
  type AgentCheckpoint,
  type AgentRunResult,
  type AgentRunStatus,
  createAgent,
  type CreateAgentOptions,
  type ScriptedStep,
  ScriptedChatClient,
} from "../src/agent/index.js";
import { toolResultMiddleware } from "../src/tool-result/index.js";

type Args = Record<string, unknown>;
/** What a fixture tool does when called; the default returns `{ ok: true, ...args }`. */
export type Behaviour = (args: Args, ctx: ToolContext) => unknown;

/** The fake outside world the fixture tools talk to: per-test behaviours and a call log. */
export class ToolWorld {
  readonly log: { tool: string; args: Args; callId: string }[] = [];
  private readonly behaviours = new Map<string, Behaviour>();

  on(tool: string, behaviour: Behaviour): this {
    this.behaviours.set(tool, behaviour);
    return this;
  }

  async call(tool: string, args: Args, ctx: ToolContext): Promise<unknown> {
    this.log.push({ tool, args, callId: ctx.callId });
    const behaviour = this.behaviours.get(tool);
    return behaviour ? behaviour(args, ctx) : { ok: true, ...args };
  }

  /** The arguments of each call of `tool`, in call order. */
  callsOf(tool: string): Args[] {
    return this.log.filter((entry) => entry.tool === tool).map((entry) => entry.args);
  }
}

/** An HTTP client error as vendor SDKs throw it: the raw text must never reach the model. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const RAW_403 =
  "HTTP 403 Forbidden: java.lang.SecurityException: token sk_live_51Hx at com.harbor.crm.SalesforceClient.update(SalesforceClient.java:212)";

@AgentFunctionGroup()
export class CrmTools {
  constructor(private readonly world: ToolWorld) {}

  @AgentFunction({
    description: "Updates a CRM contact.",
    input: z.object({ contactId: z.string(), email: z.string().optional() }),
  })
  updateContact(args: Args, ctx: ToolContext) {
    return this.world.call("updateContact", args, ctx);
  }

  @AgentFunction({ description: "Creates an account.", input: z.object({ name: z.string() }) })
  createAccount(args: Args, ctx: ToolContext) {
    return this.world.call("createAccount", args, ctx);
  }

  @AgentFunction({
    description: "Adds a contact to the account created in the same round.",
    input: z.object({ contactId: z.string() }),
    dependsOn: ["createAccount"],
  })
  addToAccount(args: Args, ctx: ToolContext) {
    return this.world.call("addToAccount", args, ctx);
  }

  @AgentFunction({ description: "Posts an activity note.", input: z.object({ note: z.string() }) })
  postNote(args: Args, ctx: ToolContext) {
    return this.world.call("postNote", args, ctx);
  }
}

@AgentFunctionGroup({ roundPolicy: "all-or-nothing" })
export class LedgerTools {
  constructor(private readonly world: ToolWorld) {}

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
    compensate: {
      tool: "undoCredit",
      arguments: (input, data) => ({ account: input.account as string, ref: (data as { ref: string }).ref }),
    },
  })
  credit(args: Args, ctx: ToolContext) {
    return this.world.call("credit", args, ctx);
  }

  @AgentFunction({ description: "Writes an audit line (cannot be undone).", input: z.object({ line: z.string() }) })
  audit(args: Args, ctx: ToolContext) {
    return this.world.call("audit", args, ctx);
  }

  @AgentFunction({
    description: "Reverses a debit.",
    input: z.object({ ok: z.boolean(), account: z.string(), amount: z.number() }),
  })
  undoDebit(args: Args, ctx: ToolContext) {
    return this.world.call("undoDebit", args, ctx);
  }

  @AgentFunction({ description: "Reverses a credit.", input: z.object({ account: z.string(), ref: z.string() }) })
  undoCredit(args: Args, ctx: ToolContext) {
    return this.world.call("undoCredit", args, ctx);
  }
}

@AgentFunctionGroup({ roundPolicy: "fail-fast" })
export class SearchTools {
  constructor(private readonly world: ToolWorld) {}

  @AgentFunction({ description: "Searches index A.", input: z.object({ q: z.string() }) })
  searchA(args: Args, ctx: ToolContext) {
    return this.world.call("searchA", args, ctx);
  }

  @AgentFunction({ description: "Searches index B.", input: z.object({ q: z.string() }) })
  searchB(args: Args, ctx: ToolContext) {
    return this.world.call("searchB", args, ctx);
  }
}

@AgentFunctionGroup()
export class PaymentTools {
  constructor(private readonly world: ToolWorld) {}

  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string(), amount: z.number() }),
    requiresApproval: true,
  })
  refund(args: Args, ctx: ToolContext) {
    return this.world.call("refund", args, ctx);
  }

  @AgentFunction({ description: "Looks up an order.", input: z.object({ orderId: z.string() }) })
  lookupOrder(args: Args, ctx: ToolContext) {
    return this.world.call("lookupOrder", args, ctx);
  }
}

/** Resolves when `signal` aborts, rejecting with its reason: a tool that honours cancellation. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** A promise with its resolve function, for steering tool timing from a test. */
export function deferred<T = unknown>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface Harness {
  readonly world: ToolWorld;
  readonly invoker: ToolInvoker;
  /** An agent over the fixture tools playing `steps`; the model is returned for assertions. */
  agent(
    steps: readonly ScriptedStep[],
    options?: Partial<CreateAgentOptions>,
  ): { agent: Agent; model: ScriptedChatClient };
}

/** Fixture tools behind the real tool-result middleware (or the given middleware). */
export function harness(
  options: { middleware?: ToolMiddleware[]; redact?: (value: unknown) => unknown } = {},
): Harness {
  const world = new ToolWorld();
  const child = container.createChildContainer();
  child.register(ToolWorld, { useValue: world });
  const invoker = createToolInvoker(child, {
    functions: [CrmTools, LedgerTools, SearchTools, PaymentTools],
    middleware: options.middleware ?? [toolResultMiddleware()],
  });
  return {
    world,
    invoker,
    agent(steps, agentOptions = {}) {
      const model = new ScriptedChatClient(steps);
      const agent = createAgent(
        { invoker, ...(options.redact ? { redact: options.redact } : {}) },
        { name: "test-agent", instructions: "You are a test agent.", chatClient: model, ...agentOptions },
      );
      return { agent, model };
    },
  };
}

/** The model-facing JSON of the tool message answering `callId`. */
export function toolReply(
  messages: readonly { role: string; content?: string; toolCallId?: string }[],
  callId: string,
): Record<string, unknown> {
  const message = messages.find((m) => m.role === "tool" && m.toolCallId === callId);
  if (!message?.content) throw new Error(`no tool message for ${callId}`);
  return JSON.parse(message.content) as Record<string, unknown>;
}

/**
 * Fails the test unless `result` ended with `status`, and narrows it to that status's variant, so
 * `result.checkpoint` or `result.reason` read without a cast.
 */
export function assertStatus<S extends AgentRunStatus>(
  result: AgentRunResult,
  status: S,
): asserts result is AgentRunResult & { readonly status: S } {
  expect(result.status, "reason" in result ? result.reason : undefined).toBe(status);
}

/** The checkpoint of a run that must have paused for approval (the test fails otherwise). */
export function checkpointOf(result: AgentRunResult): AgentCheckpoint {
  assertStatus(result, "awaiting_approval");
  return result.checkpoint;
}
