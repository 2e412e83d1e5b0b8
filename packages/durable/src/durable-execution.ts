import type { ToolOutcome } from "@needlework/core";
import type { ApprovalRecord } from "./approval-record.js";

/**
 * A tool call as the run loop hands it to {@link DurableExecution.call}: who it is, what it asks,
 * and what its tool promises. The execution keeps what it records JSON-safe (`arguments` are the
 * model's, as given).
 *
 * @example
 * ```ts
 * const call: DurableToolCall = {
 *   callId: "call_1_1", tool: "refund", arguments: { orderId: "A-1" },
 *   idempotencyKey: "run-1:call_1_1", idempotent: false, readOnly: false, known: true, runs: true,
 * };
 * ```
 */
export interface DurableToolCall {
  /** The call's id in the run (deterministic: `call_<turn>_<n>`). */
  readonly callId: string;
  /** The tool's name as the model gave it. */
  readonly tool: string;
  /** The arguments as the model gave them. */
  readonly arguments: unknown;
  /** The call's idempotency key, assigned once when its round was formed (`<runId>:<callId>`, or a repeat's first key). */
  readonly idempotencyKey: string;
  /** The tool's `idempotent` option: a call in flight at a crash runs again (with the same key) only when true. */
  readonly idempotent: boolean;
  /** The tool's `readOnly` option: running it again is harmless (the built-in journal records no start for it). */
  readonly readOnly: boolean;
  /** False for a name the agent does not know (no body runs; only the outcome is recorded). */
  readonly known: boolean;
  /**
   * False when the loop answers the call itself without running a body (denied, over a budget,
   * refused by a gate): only its outcome is recorded.
   */
  readonly runs: boolean;
  /** The verified decision record of a gated call, kept with its start. */
  readonly approval?: ApprovalRecord;
  /** The run's signal: a replayed call the original run cancelled waits on it. Never recorded. */
  readonly signal?: AbortSignal;
}

/** A call's evidence of a decision: its signed record, or `"settled"` when its outcome is recorded. */
export type DecisionEvidence = ApprovalRecord | "settled";

/**
 * The gated call a wait is for, and the loop's own check of a decision record for it (the one the
 * loop applies again before anything runs). An engine that takes records from outside (a message,
 * a promise) drops one the check refuses and keeps waiting: a forged record must not end the wait.
 *
 * @example
 * ```ts
 * const check: DecisionCheck = { tool: "refund", arguments: { orderId: "o1" }, verifies: (record) => record !== null };
 * const evidence = await execution.waitForDecision("call_1_1", true, check);
 * ```
 */
export interface DecisionCheck {
  /** The call's tool, as the model named it. */
  readonly tool: string;
  /** The call's arguments, as the model gave them (JSON: an engine may keep them for its own check). */
  readonly arguments: unknown;
  /** True when `record` is a decision signed for exactly this run, call, tool and arguments. */
  verifies(record: unknown): boolean;
}

/**
 * The port the agent loop runs over: every place the loop journals goes through it. The built-in
 * journal ({@link journalExecution}: in memory, or a `RunJournal` of a store such as the file or
 * PostgreSQL one) is one implementation; durable execution engines (`@needlework/dbos`,
 * `@needlework/restate`) are others. `durableExecutionContract()` in `@needlework/durable/testing`
 * holds every implementation to the same rules.
 *
 * Rules (what the loop relies on):
 * - `step(name, fn)` runs `fn` once per run: a replay returns the recorded value without running
 *   it. Names: `turn:<index>` for a model turn (the value is the turn's `ChatResponse`, its tool
 *   calls named) and `round:<turn>` for a round's start (a fresh `nonce` and the round's keys: an
 *   engine that finds a recorded start knows which calls were in flight).
 * - `call(key, fn, call)` returns the call's outcome and never throws for the tool's sake (the body
 *   `fn` returns the envelope; retries, breaker and bulkhead are inside it, engine retries are off):
 *   a recorded outcome is returned without running `fn`; a call started but never settled runs
 *   again (same `key`) only when `call.idempotent`, and is otherwise `OUTCOME_UNKNOWN`; any other
 *   call records its start (unless `readOnly`, unknown or `runs: false`) before `fn` runs, then its
 *   outcome.
 * - `waitForDecision(callId, gated)` resolves the evidence the execution holds or receives for a
 *   call's decision; `undefined` when there is none (the built-in journal never waits: the run
 *   pauses with a checkpoint). Only a `gated` call may be waited for; an engine that waits drops a
 *   record `check` refuses (never consumed as the call's decision) and waits on.
 * - `now()`/`random()` where replay needs the same values again.
 *
 * @example
 * ```ts
 * const response = await execution.step("turn:0", () => chatClient.complete(request));
 * const outcome = await execution.call(call.idempotencyKey, () => invoker.invoke(toolCall), call);
 * ```
 */
export interface DurableExecution {
  /** The run's id: the engine's workflow id, the journal's run id. */
  readonly runId: string;
  /** Runs `fn` as one durable step named `name` (see the rules above); a replay returns the recorded value. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Runs one tool call keyed `key` (its idempotency key) and records its outcome: the one path outcomes are recorded on. */
  call(key: string, fn: () => Promise<ToolOutcome>, call: DurableToolCall): Promise<ToolOutcome>;
  /** The decision evidence for `callId`, or undefined (the run pauses); `check` is the loop's check of a record. */
  waitForDecision(callId: string, gated?: boolean, check?: DecisionCheck): Promise<DecisionEvidence | undefined>;
  /** The time, in epoch ms, as a replay sees it again. */
  now(): number;
  /** A random number in [0, 1), as a replay sees it again. */
  random(): number;
  /**
   * True while the execution re-walks steps it holds: the run's events are marked `replayed`
   * (hooks skip them). An engine that cannot tell omits it (nothing is marked).
   */
  replaying?(): boolean;
}

/** The step name of model turn `index` (0-based): `turn:<index>`. */
export function turnStep(index: number): string {
  return `turn:${index}`;
}

/** The step name of the round of turn `turn` (1-based): `round:<turn>`. */
export function roundStep(turn: number): string {
  return `round:${turn}`;
}

/** The value a round's start step records: a fresh nonce and the round's idempotency keys, in order. */
export interface RoundStart {
  /** Fresh per execution: a recorded nonce that differs from this execution's means the start is replayed. */
  readonly nonce: string;
  /** The idempotency keys of the round's calls, in the model's order. */
  readonly keys: readonly string[];
}

/** The run an engine is asked to execute: its id and the agent's name. */
export interface DurableRunInfo {
  /** The run's id (the engine's workflow id, or part of it). */
  readonly runId: string;
  /** The agent's name. */
  readonly agent: string;
}

/**
 * How an agent plugs a durable execution engine in (`createAgent({ execution })`): called once per
 * run, inside the engine's workflow, for the run's {@link DurableExecution}.
 *
 * @example
 * ```ts
 * const agent = factory.createAgent({ name, instructions, chatClient, execution: (run) => myEngine.open(run) });
 * ```
 */
export type DurableExecutionFactory = (run: DurableRunInfo) => DurableExecution | Promise<DurableExecution>;
