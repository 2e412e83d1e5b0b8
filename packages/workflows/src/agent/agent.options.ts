import type { CallGate } from "./loop/call-gate.types.js";
import type { ChatClient, RoundPolicy, ToolClass, ToolInvoker, ToolOutcome } from "@needlework/core";
import type { AgentRunResult } from "@needlework/core/events";
import type { RunTelemetry } from "@needlework/otel";
import type { RunInfo } from "../plugin.js";
import type { ResilienceOptions } from "../resilience/index.js";
import type { RunListener } from "./events/run-events.js";
import type { AgentStore, DurableExecutionFactory } from "@needlework/durable";
import type { AgentHooks } from "./hooks.js";
import type { DeadLetterQueue } from "@needlework/durable";
import type { ResumedCheckpointStore } from "./approvals/claims.js";
import type { ApprovalPolicy } from "./approvals/approval-options.js";
import type { TokenBudget } from "./policies/budgets.js";
import type { FinalAnswerOptions } from "./policies/final-answer.js";
import type { SuccessClaimDetector } from "./policies/success-claim.js";

/**
 * What an agent needs from the factory. `factory.createAgent(options)` fills it in.
 *
 * @example
 * ```ts
 * const agent = createAgent({ invoker: factory.tools, redact: factory.redact }, { name, instructions, chatClient });
 * ```
 */
export interface AgentDeps {
  readonly invoker: ToolInvoker;
  /** Scrubs what leaves by another way than a tool result (dead-letter entries). */
  readonly redact?: (value: unknown) => unknown;
  /** Renders an outcome for the model; default `formatToolOutcome(outcome)`. */
  readonly formatOutcome?: (outcome: ToolOutcome) => string;
  /** The plugins' run observers (`observeRun`, composed by the factory): each run's events reach them. */
  readonly runObservers?: readonly ((runId: string) => RunListener | undefined)[];
  /** Wraps every run, whichever of the six methods starts it (the deprecated `wrapRun` of plugins without `telemetry`). */
  readonly wrapRun?: (run: RunInfo, body: () => Promise<AgentRunResult>) => Promise<AgentRunResult>;
  /** Wraps the agent's chat client (the deprecated `wrapChatClient` of plugins without `telemetry`). */
  readonly wrapChatClient?: (client: ChatClient) => ChatClient;
  /** The plugins' call gates (`gateCalls`: the injection policy), asked before every round of every start. */
  readonly callGates?: readonly CallGate[];
  /** The plugins' telemetry subscriber (`telemetry`, composed by the factory): every run's start, end, error and model calls. */
  readonly telemetry?: RunTelemetry;
}

/**
 * An agent without its model: everything `createAgent` takes except `chatClient`. `@Agent(...)`
 * declares one on a class. Defaults: {@link AGENT_DEFAULTS}.
 *
 * @example
 * ```ts
 * const definition: AgentDefinition = { name: "support", instructions: "Answer order questions.", functionGroups: ["orders"] };
 * ```
 */
export interface AgentDefinition extends AgentHooks {
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  /** What the agent is for, in a sentence (for people and for agents that pick other agents). */
  readonly description?: string;
  /**
   * Offer only the tools of classes in these groups (`@AgentFunctionGroup("orders")`), plus those of
   * `functions`. Naming neither offers every tool of the factory.
   */
  readonly functionGroups?: readonly string[];
  /** Offer the tools of these classes (besides those of `functionGroups`). */
  readonly functions?: readonly ToolClass[];
  /**
   * Resilience for this agent's tool calls. Replaces the factory's `usingResilience()` options
   * for this agent (never stacks on them); needs `factory.createAgent`.
   */
  readonly resilience?: ResilienceOptions;
  /** Model turns per run (a correction turn counts). Default 10. */
  readonly maxIterations?: number;
  /** Tool calls of one round running at once. Default 8. */
  readonly maxConcurrency?: number;
  /**
   * Tool calls one model turn may make. The first ones run; the rest are answered
   * `TOO_MANY_TOOL_CALLS` (`retriable: false`) without running, so a turn of thousands of calls
   * cannot flood the tools or the journal. Default 128.
   */
  readonly maxToolCallsPerTurn?: number;
  /** For tools whose group declares none. Default `best-effort`. */
  readonly roundPolicy?: RoundPolicy;
  /** Decides what counts as a success claim, or `false` to turn the guardrail off. Default {@link claimsSuccess}. */
  readonly guardrail?: SuccessClaimDetector | false;
  /** Require a structured final answer. */
  readonly finalAnswer?: FinalAnswerOptions;
  /** Where poisoned calls go. Default: a new `InMemoryDeadLetterQueue`. */
  readonly deadLetters?: DeadLetterQueue;
  /** Failures of one call (tool + equal arguments) with one code that end the run. Default 3. */
  readonly poisonThreshold?: number;
  /**
   * Tool calls the model may make in one run. Calls beyond it are not run (`TOOL_CALL_LIMIT_REACHED`)
   * and the model is asked to answer without tools. Default: no limit.
   */
  readonly maxTotalToolCalls?: number;
  /**
   * Tool rounds the model may run before it must answer in text: once reached, the next model turn
   * is offered no tools and told to answer. A text answer (or a correction turn) starts a new
   * iteration. Default: no limit (only `maxIterations`).
   */
  readonly maxToolRoundsPerIteration?: number;
  /** A token budget from the chat client's usage; see {@link TokenBudget}. Default: none. */
  readonly tokenBudget?: TokenBudget;
  /**
   * Consecutive rounds with the same calls, arguments and outcomes that end the run `stalled`,
   * or `false` to turn stall detection off. Default 3.
   */
  readonly stallThreshold?: number | false;
  /**
   * Signs checkpoints; agents sharing it can resume each other's. At least 32 bytes (UTF-8 for a
   * string). Default: a random key per agent instance.
   */
  readonly checkpointSecret?: string | Uint8Array;
  /** Checkpoints older than this are refused on resume (`CHECKPOINT_EXPIRED`). Default 7 days. */
  readonly checkpointMaxAgeMs?: number;
  /** Calls needing approval besides tools declared with `requiresApproval`. */
  readonly approvalPolicy?: ApprovalPolicy;
  /**
   * Not asked any more: a checkpoint resumes once because its run's journal records that the pause
   * was decided (with a `store`, across processes; without one, in this agent instance's journal in
   * memory). With a `store`, this option is ignored; without one, `createAgent` throws a `TypeError`
   * (a claim store shared across processes would otherwise stop holding silently).
   *
   * @deprecated Pass a `store` instead (`new FileRunStore(dir)`, or a `PostgresStore`): once-only
   * across processes lives in its run journal.
   */
  readonly resumedCheckpoints?: ResumedCheckpointStore;
  /**
   * Journals every run durably (so `agent.resumeRun(runId)` continues it on any instance after its
   * process died, and a checkpoint resumes once across every agent over the store) and supplies dead
   * letters unless `deadLetters` is given: `new InMemoryRunStore()`, `new FileRunStore(dir)` or
   * `PostgresStore` from `@needlework/postgres`. Default: none (each run's journal is its own, in
   * memory, dropped when the run ends).
   */
  readonly store?: AgentStore;
  /**
   * Runs every run inside a durable execution engine the user already runs (`@needlework/dbos`,
   * `@needlework/restate`): called once per run for the run's `DurableExecution`, the port the loop
   * journals through (model turns and round starts as steps, tool calls keyed by their idempotency
   * key, approvals as the engine's wait). The engine owns replay and recovery: a run is resumed by
   * the engine re-running its workflow, not by `resumeRun`. Default: none (the built-in journal:
   * `store`'s, or the run's own in memory).
   */
  readonly execution?: DurableExecutionFactory;
  /** Epoch milliseconds, for dead-letter and checkpoint times. Default `Date.now`. */
  readonly clock?: () => number;
}

/**
 * Options of `factory.createAgent()` and `createAgent(deps, options)`: a definition and its model.
 *
 * @example
 * ```ts
 * factory.createAgent({ name: "crm-sync", instructions: "Sync contacts.", chatClient, roundPolicy: "all-or-nothing" });
 * ```
 */
export interface CreateAgentOptions extends AgentDefinition {
  readonly chatClient: ChatClient;
}

/**
 * Options of `agent.run()`.
 *
 * @example
 * ```ts
 * await agent.run("Sync c1", { signal: AbortSignal.timeout(60_000), runId: request.id });
 * ```
 */
export interface RunOptions {
  /** Cancels the run: in-flight tools are aborted and `run` rejects with an AbortError. */
  readonly signal?: AbortSignal;
  /** Default: generated. */
  readonly runId?: string;
}

/**
 * Options of `agent.resume()`.
 *
 * @example
 * ```ts
 * await agent.resume(checkpoint, decisions, { signal: AbortSignal.timeout(60_000) });
 * ```
 */
export interface ResumeOptions {
  readonly signal?: AbortSignal;
}
