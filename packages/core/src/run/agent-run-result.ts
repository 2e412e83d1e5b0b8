import type { ChatMessage, ChatUsage } from "../chat-client.js";
import type { ToolOutcomeStatus } from "../tool-outcome.js";
import type { AgentCheckpoint, PendingApproval } from "./agent-checkpoint.js";

/**
 * How a run ended: `completed` (no failure left blocking), `completed_with_failures` (the final
 * answer admits failures that are still blocking), `escalated` (the final answer claimed success
 * or broke its contract again after one correction turn), `dead_lettered` (poison: the same call
 * kept failing the same way), `awaiting_approval` (paused for decisions; see `checkpoint`),
 * `max_iterations` (the model-turn limit was reached), `budget_exhausted` (the token budget was
 * spent, or the model kept calling tools after `maxTotalToolCalls` or `maxToolRoundsPerIteration`
 * withdrew them), `stalled` (the same calls with the same outcomes repeated `stallThreshold`
 * rounds in a row), `cancelled` (an operator cancelled the run, `journal.requestCancel()`: its
 * in-flight calls were aborted and answered `CANCELLED`).
 *
 * @example
 * ```ts
 * if (result.status === "escalated") await pageOnCall(result.reason);
 * ```
 */
export type AgentRunStatus =
  | "completed"
  | "completed_with_failures"
  | "escalated"
  | "dead_lettered"
  | "awaiting_approval"
  | "max_iterations"
  | "budget_exhausted"
  | "stalled"
  | "cancelled";

/**
 * One tool call of the run, as run (or not run) by the runtime.
 *
 * @example
 * ```ts
 * const failed = result.calls.filter((c) => c.status !== "ok");
 * ```
 */
export interface ToolCallRecord {
  readonly tool: string;
  readonly callId: string;
  readonly status: ToolOutcomeStatus;
  readonly errorCode?: string;
  /** Attempts made (0 when the tool never ran). */
  readonly attempts: number;
  readonly latencyMs: number;
  /** The model turn (1-based) whose tool calls formed the round. */
  readonly round: number;
  /** The tool body never ran: skipped, denied, unknown tool, invalid arguments or an open circuit. */
  readonly notCalled: boolean;
  /** Set on the runtime's compensate calls: the call id this one rolled back. */
  readonly compensationFor?: string;
  /** `"untrusted"` when the result was third-party text (`@AgentFunction({ reads: "untrusted" })`). */
  readonly provenance?: "untrusted";
}

/**
 * The health counts, in the shape the model reads in the `run_health` block (snake_case).
 * `tools_failed` counts calls that ran and failed; `tools_not_called` calls whose tool never ran;
 * `blocking_failure` is true while any failure has not been cleared by a later success of the
 * same tool with equal arguments.
 *
 * @example
 * ```ts
 * if (result.health.blocking_failure) alertOps(result.calls);
 * ```
 */
export interface RunHealth {
  readonly tools_ok: number;
  readonly tools_failed: number;
  readonly tools_not_called: number;
  readonly blocking_failure: boolean;
}

/**
 * A failure that a later successful call cleared, and how many model turns that took.
 *
 * @example
 * ```ts
 * const slow = result.recoveries.filter((r) => r.steps > 2);
 * ```
 */
export interface Recovery {
  readonly tool: string;
  /** The first failing call of the series that was cleared. */
  readonly failedCallId: string;
  readonly recoveredCallId: string;
  /**
   * Model turns from the failing round to the clearing one (1 = fixed on the next turn; 0 = a copy
   * of the call succeeded in the same round).
   */
  readonly steps: number;
}

/**
 * The fields every {@link AgentRunResult} has, whatever its `status`: read them without narrowing.
 *
 * @example
 * ```ts
 * function summarize(result: AgentRunResultBase): string {
 *   return `${result.status} after ${result.iterations} turns, ${result.calls.length} calls`;
 * }
 * ```
 */
export interface AgentRunResultBase {
  readonly status: AgentRunStatus;
  readonly runId: string;
  /** The last assistant text ("" when the run stopped without one). */
  readonly text: string;
  /** The whole conversation, system prompt first. */
  readonly messages: readonly ChatMessage[];
  /** One record per tool call, in the order the rounds ran them, compensate calls included. */
  readonly calls: readonly ToolCallRecord[];
  /** Counts over the whole run (a round's `run_health` block counts that round only). */
  readonly health: RunHealth;
  /**
   * The guide's silent-failure figure for this run: the final text claims success while a failure
   * is blocking and the run was not escalated.
   */
  readonly silentFailure: boolean;
  /** Mean of `recoveries[].steps`; `undefined` when nothing was recovered. */
  readonly stepsToRecovery: number | undefined;
  /** Every cleared failure, for per-tool steps-to-recovery figures. */
  readonly recoveries: readonly Recovery[];
  /** Model turns taken. */
  readonly iterations: number;
  /** Token usage summed over the model calls that reported it. */
  readonly usage: ChatUsage;
}

/**
 * A run the model answered: `completed`, or `completed_with_failures` when the answer admits
 * failures that are still blocking. `text` is the final answer.
 *
 * @example
 * ```ts
 * if (result.status === "completed") console.log(result.text, result.output);
 * ```
 */
export interface CompletedRunResult extends AgentRunResultBase {
  readonly status: "completed" | "completed_with_failures";
  /**
   * The parsed, validated final answer when `finalAnswer` is configured (it passed, or the run
   * would have ended `escalated`); absent without `finalAnswer`.
   */
  readonly output?: unknown;
}

/**
 * A run paused before a round that needs approval (`awaiting_approval`): no call of that round ran.
 *
 * @example
 * ```ts
 * if (result.status === "awaiting_approval") {
 *   for (const p of result.pendingApprovals) console.log("needs a decision:", p.tool, p.callId);
 *   await saveForReview(JSON.stringify(result.checkpoint));
 * }
 * ```
 */
export interface AwaitingApprovalRunResult extends AgentRunResultBase {
  readonly status: "awaiting_approval";
  /** The signed checkpoint: persist it (`JSON.stringify`) and pass it to `agent.resume()`. */
  readonly checkpoint: AgentCheckpoint;
  /** The calls of the paused round that need a decision (those with `requiresApproval`). */
  readonly pendingApprovals: readonly PendingApproval[];
}

/**
 * A run the runtime stopped without an accepted answer: `escalated`, `dead_lettered`,
 * `max_iterations`, `budget_exhausted`, `stalled` or `cancelled`. `reason` says why, in words fit for a log.
 *
 * @example
 * ```ts
 * if (result.status === "dead_lettered" || result.status === "stalled") log.warn(result.reason);
 * ```
 */
export interface StoppedRunResult extends AgentRunResultBase {
  readonly status: "escalated" | "dead_lettered" | "max_iterations" | "budget_exhausted" | "stalled" | "cancelled";
  /** Why the run was stopped (for `stalled`, which calls repeated; argument values are never shown). */
  readonly reason: string;
}

/**
 * What `agent.run()` and `agent.resume()` return: a union discriminated on `status`. Every variant
 * has the {@link AgentRunResultBase} fields; narrowing on `status` gives the fields that status
 * guarantees: `output` for a completed run, `checkpoint` and `pendingApprovals` for a paused one,
 * `reason` for a stopped one.
 *
 * @example
 * ```ts
 * const result = await agent.run("Sync the five contacts.");
 * if (result.status === "awaiting_approval") await saveForReview(JSON.stringify(result.checkpoint));
 * else if (result.status === "completed" || result.status === "completed_with_failures") console.log(result.text);
 * else log.warn(result.reason);
 * ```
 */
export type AgentRunResult = CompletedRunResult | AwaitingApprovalRunResult | StoppedRunResult;
