import { createToolOutcome, type ToolOutcome } from "@needlework/core";
import type { ChatUsage, ChatUserMessage } from "@needlework/core";
import type { RoundCall } from "../loop/round-call.js";
import { plural } from "../../text/plural.js";

/**
 * A token budget for one run, counted from the `usage` the chat client reports (`totalTokens`,
 * input and output, summed over the run's model calls; a client that reports no usage never
 * spends it).
 *
 * @example
 * ```ts
 * factory.createAgent({ name: "support", instructions, chatClient, tokenBudget: { maxTokens: 50_000, pressureThreshold: 0.8 } });
 * ```
 */
export interface TokenBudget {
  /** Tokens the run may use. When the total reaches it, the run ends `budget_exhausted`. */
  readonly maxTokens: number;
  /**
   * The share of `maxTokens` (above 0, below 1) at which the model is told, once, to wrap up.
   * Default `0.8`.
   */
  readonly pressureThreshold?: number;
}

/**
 * The default of {@link TokenBudget.pressureThreshold}.
 *
 * @example
 * ```ts
 * TOKEN_BUDGET_DEFAULTS.pressureThreshold; // 0.8
 * ```
 */
export const TOKEN_BUDGET_DEFAULTS = Object.freeze({ pressureThreshold: 0.8 });

/** A token budget after validation. @internal */
export interface ResolvedTokenBudget {
  readonly maxTokens: number;
  readonly pressureThreshold: number;
}

/** The limits the loop enforces beyond `maxIterations`. @internal */
export interface RunLimits {
  readonly maxTotalToolCalls: number | undefined;
  readonly maxToolRoundsPerIteration: number | undefined;
  readonly tokenBudget: ResolvedTokenBudget | undefined;
}

/** The run's budget bookkeeping; plain JSON so a checkpoint carries it. @internal */
export interface BudgetState {
  /** Tool calls the model made and the runtime admitted (calls refused by the limit excluded). */
  toolCalls: number;
  /** Tool rounds since the model last answered in text. */
  roundsInIteration: number;
  /** The token-pressure note was sent. */
  pressureNoted: boolean;
}

/** @internal */
export function emptyBudget(): BudgetState {
  return { toolCalls: 0, roundsInIteration: 0, pressureNoted: false };
}

/**
 * Why the model may no longer call tools (and is asked to answer instead), or `undefined` while it may.
 * @internal
 */
export function toolsWithdrawn(state: BudgetState, limits: RunLimits): string | undefined {
  if (limits.maxTotalToolCalls !== undefined && state.toolCalls >= limits.maxTotalToolCalls) {
    return `the run has made ${plural(state.toolCalls, "tool call")} (maxTotalToolCalls ${limits.maxTotalToolCalls})`;
  }
  if (limits.maxToolRoundsPerIteration !== undefined && state.roundsInIteration >= limits.maxToolRoundsPerIteration) {
    return `the model ran ${plural(state.roundsInIteration, "tool round")} without answering (maxToolRoundsPerIteration ${limits.maxToolRoundsPerIteration})`;
  }
  return undefined;
}

/** True when the run's token usage reached the budget. @internal */
export function tokensSpent(usage: ChatUsage, limits: RunLimits): boolean {
  return limits.tokenBudget !== undefined && usage.totalTokens >= limits.tokenBudget.maxTokens;
}

/** True when usage crossed the pressure threshold and the model was not told yet. @internal */
export function underTokenPressure(usage: ChatUsage, state: BudgetState, limits: RunLimits): boolean {
  const budget = limits.tokenBudget;
  return (
    budget !== undefined && !state.pressureNoted && usage.totalTokens >= budget.maxTokens * budget.pressureThreshold
  );
}

const meta = (call: RoundCall) => ({ tool: call.name, callId: call.callId, attempts: 0, latencyMs: 0 });

/** A call beyond `maxTotalToolCalls`: it never runs. @internal */
export function toolCallLimitOutcome(call: RoundCall, max: number): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "TOOL_CALL_LIMIT_REACHED",
    retriable: false,
    message: `Not called: this run may make at most ${plural(max, "tool call")} and has used them. Nothing was changed.`,
    suggestion: "Do not call tools again; answer with what you have and say what was not done.",
    metadata: meta(call),
  });
}

/** A call beyond `maxToolCallsPerTurn` in one model turn: answered, never run. @internal */
export function tooManyCallsOutcome(call: RoundCall, max: number): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "TOO_MANY_TOOL_CALLS",
    retriable: false,
    message: `Not called: one turn may make at most ${plural(max, "tool call")} (maxToolCallsPerTurn). Nothing was changed.`,
    suggestion: "Call fewer tools per turn: the ones that matter first, the rest in a later turn if still needed.",
    metadata: meta(call),
  });
}

/** A call the runtime refused to start because the run is ending (`code` says why). @internal */
export function notRunOutcome(
  call: RoundCall,
  code: "TOKEN_BUDGET_EXHAUSTED" | "TOOLS_WITHDRAWN",
  why: string,
): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: code,
    retriable: false,
    message: `Not called: ${why}. Nothing was changed.`,
    metadata: meta(call),
  });
}

function budgetBlock(usage: ChatUsage, state: BudgetState, limits: RunLimits): string {
  const block: Record<string, number> = {};
  if (limits.tokenBudget) {
    block.tokens_used = usage.totalTokens;
    block.max_tokens = limits.tokenBudget.maxTokens;
  }
  if (limits.maxTotalToolCalls !== undefined) {
    block.tool_calls = state.toolCalls;
    block.max_tool_calls = limits.maxTotalToolCalls;
  }
  if (limits.maxToolRoundsPerIteration !== undefined) {
    block.tool_rounds = state.roundsInIteration;
    block.max_tool_rounds = limits.maxToolRoundsPerIteration;
  }
  return `budget ${JSON.stringify(block)}`;
}

/** The note after usage crossed the pressure threshold: wrap up. @internal */
export function tokenPressureNote(usage: ChatUsage, state: BudgetState, limits: RunLimits): ChatUserMessage {
  const budget = limits.tokenBudget!;
  const share = Math.floor((usage.totalTokens / budget.maxTokens) * 100);
  return {
    role: "user",
    kind: "budget",
    content:
      `${budgetBlock(usage, state, limits)}\n` +
      `This run has used ${share}% of its token budget. Wrap up: call a tool only if the answer cannot be given without it, then write your final answer, saying what was not done.`,
  };
}

/** The note when tools are withdrawn: answer now. @internal */
export function answerNowNote(
  reason: string,
  usage: ChatUsage,
  state: BudgetState,
  limits: RunLimits,
): ChatUserMessage {
  return {
    role: "user",
    kind: "budget",
    content: `${budgetBlock(usage, state, limits)}\nNo more tool calls: ${reason}. Write your final answer now from the results you have, and say what was not done.`,
  };
}

/**
 * The calls of a turn that will not run, with the outcome that answers each: past
 * `maxToolCallsPerTurn` (`TOO_MANY_TOOL_CALLS`), or past what is left of the run's
 * `maxTotalToolCalls` (`TOOL_CALL_LIMIT_REACHED`). @internal
 */
export function callsNotRun(
  calls: readonly RoundCall[],
  state: BudgetState,
  options: { readonly maxToolCallsPerTurn: number; readonly limits: RunLimits },
): Map<string, ToolOutcome> {
  const perTurn = options.maxToolCallsPerTurn;
  const notRun = new Map<string, ToolOutcome>();
  for (const call of calls.slice(perTurn)) notRun.set(call.callId, tooManyCallsOutcome(call, perTurn));
  const admitted = calls.slice(0, perTurn);
  const max = options.limits.maxTotalToolCalls;
  if (max !== undefined)
    for (const call of admitted.slice(Math.max(0, max - state.toolCalls)))
      notRun.set(call.callId, toolCallLimitOutcome(call, max));
  return notRun;
}
