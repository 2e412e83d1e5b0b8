import type { ChatMessage, ToolOutcome } from "@needlework/core";
import { isUntrustedOutcome } from "@needlework/core";
import { wasNotCalled } from "@needlework/durable";
import type { AgentRunResult, CompletedRunResult, RunHealth, ToolCallRecord } from "@needlework/core/events";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import {
  answerNowNote,
  tokenPressureNote,
  tokensSpent,
  toolsWithdrawn,
  underTokenPressure,
} from "../policies/budgets.js";
import { checkFinalAnswer } from "../policies/final-answer.js";
import { trackStall } from "../policies/stall.js";
import { claimsSuccess } from "../policies/success-claim.js";
import { plural } from "../../text/plural.js";
import { runHealthBlock, runHealthMessage, successClaimCorrection } from "./run-health.js";
import { bookRound, type PoisonCount, runHealth } from "./run-ledger.js";
import type { SettledCall } from "./run-round.js";
import type { AgentRuntime, RunEnd, RunState } from "./run-state.js";

// The steps that end a run or a round, each a function of the run's state: the loop (AgentRun)
// decides when, these decide what.

/** The run's result: `end` (its status and that status's own fields) plus what every result has. @internal */
export function runResult(options: ResolvedAgentOptions, state: RunState, end: RunEnd): AgentRunResult {
  let text = "";
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === "assistant" && m.content !== undefined) {
      text = m.content;
      break;
    }
  }
  const health = runHealth(state.ledger);
  const detector = options.guardrail === false || options.guardrail === undefined ? claimsSuccess : options.guardrail;
  const answered = end.status === "completed" || end.status === "completed_with_failures";
  const { recoveries } = state.ledger;
  return {
    ...end,
    runId: state.runId,
    text,
    messages: [...state.messages],
    calls: [...state.calls],
    health,
    silentFailure: answered && health.blocking_failure && options.finalAnswer === undefined && detector(text),
    stepsToRecovery:
      recoveries.length === 0 ? undefined : recoveries.reduce((sum, r) => sum + r.steps, 0) / recoveries.length,
    recoveries: [...recoveries],
    iterations: state.iteration,
    usage: { ...state.usage },
  };
}

/** Books one call in `state.calls` and returns its record. @internal */
export function recordCall(
  state: RunState,
  call: { tool: string; callId: string; outcome: ToolOutcome; round: number; compensationFor?: string },
): ToolCallRecord {
  const { tool, callId, outcome, round, compensationFor } = call;
  const record: ToolCallRecord = {
    tool,
    callId,
    status: outcome.status,
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    attempts: outcome.metadata.attempts,
    latencyMs: outcome.metadata.latencyMs,
    round,
    notCalled: wasNotCalled(outcome),
    ...(compensationFor === undefined ? {} : { compensationFor }),
    ...(isUntrustedOutcome(outcome) ? { provenance: "untrusted" as const } : {}),
  };
  state.calls.push(record);
  return record;
}

/** Writes each poisoned call to the dead-letter queue, redacted. @internal */
export async function deadLetterPoisoned(
  runtime: AgentRuntime,
  runId: string,
  poisoned: readonly PoisonCount[],
): Promise<void> {
  const { options, redact, deadLetters } = runtime;
  for (const p of poisoned) {
    await deadLetters.append({
      runId,
      agent: options.name,
      tool: p.tool,
      arguments: redact(p.arguments),
      errorCode: p.errorCode,
      callIds: [...p.callIds],
      outcomes: p.outcomes.map((o) => redact(o)),
      time: new Date(options.clock()).toISOString(),
      reason: `Failed ${plural(p.count, "time")} with ${p.errorCode} for the same arguments.`,
    });
  }
}

/** What a final answer leads to: the run's end, or its one correction turn. @internal */
export type Verdict = { readonly end: RunEnd } | { readonly correction: ChatMessage; readonly problem: string };

/**
 * Judges a final answer: accept it (its status from the blocking failures), ask for the run's one
 * correction (a guardrail or final-answer contract problem), or escalate after it was used.
 * @internal
 */
export function judgeAnswer(options: ResolvedAgentOptions, state: RunState, text: string): Verdict {
  const { blocking } = state.ledger;
  const settledStatus: CompletedRunResult["status"] = blocking.length > 0 ? "completed_with_failures" : "completed";
  let problem: string | undefined;
  let correction: ChatMessage | undefined;
  let output: unknown;
  if (options.finalAnswer) {
    const verdict = checkFinalAnswer(text, options.finalAnswer, blocking);
    if (verdict.ok) output = verdict.output;
    else ({ problem, correction } = verdict);
  } else if (blocking.length > 0 && options.guardrail !== false && (options.guardrail ?? claimsSuccess)(text)) {
    problem = `the final answer claims success while ${plural(blocking.length, "tool call")} had not succeeded (${blocking.map((b) => `${b.tool}: ${b.errorCode}`).join(", ")})`;
    correction = successClaimCorrection(blocking);
  }
  if (problem === undefined) return { end: { status: settledStatus, ...(output === undefined ? {} : { output }) } };
  if (!state.corrected) return { correction: correction!, problem };
  return { end: { status: "escalated", reason: `After one correction turn, ${problem}.` } };
}

/** After a round: tell the model to answer when tools are withdrawn, or to wrap up under token pressure. @internal */
export function noteBudget(options: ResolvedAgentOptions, state: RunState): void {
  const { limits } = options;
  const { budget, usage } = state;
  const pressure = underTokenPressure(usage, budget, limits);
  if (pressure) budget.pressureNoted = true;
  const withdrawn = toolsWithdrawn(budget, limits);
  if (withdrawn !== undefined) state.messages.push(answerNowNote(withdrawn, usage, budget, limits));
  else if (pressure) state.messages.push(tokenPressureNote(usage, budget, limits));
}

/** "The run used N tokens of its budget of M", for a budget stop's reason. @internal */
export function tokensUsed(options: ResolvedAgentOptions, state: RunState): string {
  const max = options.limits.tokenBudget?.maxTokens ?? 0;
  return `The run used ${state.usage.totalTokens} tokens of its budget of ${max} (tokenBudget.maxTokens)`;
}

/** A check before a model turn: the end it calls for, or undefined to go on. */
type StopCondition = (options: ResolvedAgentOptions, state: RunState) => RunEnd | undefined;

const maxIterationsReached: StopCondition = (options, state) =>
  state.iteration >= options.maxIterations
    ? {
        status: "max_iterations",
        reason: `Stopped after ${plural(options.maxIterations, "model turn")} (maxIterations) without an accepted final answer.`,
      }
    : undefined;

const tokenBudgetSpent: StopCondition = (options, state) =>
  tokensSpent(state.usage, options.limits)
    ? {
        status: "budget_exhausted",
        reason: `${tokensUsed(options, state)}; the run was stopped before the next model turn.`,
      }
    : undefined;

/** Checked before each model turn, in order; the first that applies ends the run. */
const STOP_BEFORE_TURN: readonly StopCondition[] = [maxIterationsReached, tokenBudgetSpent];

/** The end the run reaches before its next model turn, if any (see `STOP_BEFORE_TURN`). @internal */
export function stopBeforeTurn(options: ResolvedAgentOptions, state: RunState): RunEnd | undefined {
  for (const condition of STOP_BEFORE_TURN) {
    const end = condition(options, state);
    if (end !== undefined) return end;
  }
  return undefined;
}

/** The end of a run whose call was poisoned (the same failure `poisonThreshold` times). @internal */
export function poisonedEnd(options: ResolvedAgentOptions, first: PoisonCount): RunEnd {
  return {
    status: "dead_lettered",
    reason: `'${first.tool}' failed ${plural(first.count, "time")} with ${first.errorCode} for the same arguments (poisonThreshold ${options.poisonThreshold}); the run was stopped and written to the dead-letter queue.`,
  };
}

/** The end of a run whose rounds repeat without progress. @internal */
export function stalledEnd(options: ResolvedAgentOptions, state: RunState, repeated: readonly string[]): RunEnd {
  return {
    status: "stalled",
    reason: `The same round repeated ${state.stall.count} times in a row with the same outcomes (stallThreshold ${String(options.stallThreshold)}): ${repeated.join("; ")}. The model was making no progress; the run was stopped.`,
  };
}

/**
 * Books a settled round in the ledger and decides what it leads to: a `run_health` message after a
 * failing round (returned as `health` for the stream), poison (the calls are dead-lettered and the
 * run ends), a stall, or a budget note and the next turn. @internal
 */
export async function concludeRound(
  runtime: AgentRuntime,
  state: RunState,
  settled: readonly SettledCall[],
): Promise<{ end: RunEnd | undefined; health?: RunHealth }> {
  const { options } = runtime;
  const { counts, poisoned } = bookRound(state.ledger, settled, state.iteration, options.poisonThreshold);
  let health: RunHealth | undefined;
  if (counts.failed + counts.notCalled > 0) {
    const blocking = state.ledger.blocking.length > 0;
    state.messages.push(runHealthMessage(counts, blocking));
    health = runHealthBlock(counts, blocking);
  }
  const report = health === undefined ? {} : { health };
  if (poisoned.length > 0) {
    await deadLetterPoisoned(runtime, state.runId, poisoned);
    return { end: poisonedEnd(options, poisoned[0]!), ...report };
  }
  const repeated = trackStall(state.stall, settled, options.stallThreshold);
  if (repeated) return { end: stalledEnd(options, state, repeated), ...report };
  noteBudget(options, state);
  return { end: undefined, ...report };
}
