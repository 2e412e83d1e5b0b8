import type { ToolOutcome } from "@needlework/core";
import type { DeadLetterQueue } from "./dead-letter-queue.js";
import type { DecisionCheck, DecisionEvidence, DurableExecution, DurableToolCall } from "./durable-execution.js";

/**
 * The base class of an engine adapter's execution (`DbosExecution`, `RestateExecution`, your own):
 * every member of the {@link DurableExecution} port hands over to `inner`, which the adapter builds
 * with `engineExecution()` over its engine's durable step and wait. The subclass checks where it
 * runs (inside the engine's workflow, with the run's id) and passes `inner` to `super`.
 *
 * @example
 * ```ts
 * class MyExecution extends DelegatingExecution {
 *   constructor(run: DurableRunInfo) {
 *     super(engineExecution({ runId: run.runId, step: (name, fn) => myEngine.step(name, fn) }));
 *   }
 * }
 * ```
 */
export abstract class DelegatingExecution implements DurableExecution {
  /** The run's id: the engine's workflow id (or key). */
  readonly runId: string;
  /** The execution every member hands over to. */
  protected readonly inner: DurableExecution;

  protected constructor(inner: DurableExecution) {
    this.inner = inner;
    this.runId = inner.runId;
  }

  /** Runs `fn` as one durable step of the engine (retries off); a replay gets the recorded value. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.inner.step(name, fn);
  }

  /**
   * Runs one tool call as one durable step recording its outcome: a call in flight at a crash runs
   * again (same key) only when its tool is idempotent, and is otherwise `OUTCOME_UNKNOWN`.
   */
  call(key: string, fn: () => Promise<ToolOutcome>, call: DurableToolCall): Promise<ToolOutcome> {
    return this.inner.call(key, fn, call);
  }

  /** Waits (durably, on the engine's wait) for a gated call's signed decision record that `check` verifies. */
  waitForDecision(callId: string, gated?: boolean, check?: DecisionCheck): Promise<DecisionEvidence | undefined> {
    return this.inner.waitForDecision(callId, gated, check);
  }

  /** The time (epoch ms). */
  now(): number {
    return this.inner.now();
  }

  /** A random number in [0, 1), as a replay sees it again where the engine records it. */
  random(): number {
    return this.inner.random();
  }

  /** True after a step whose recorded value the engine returned without running it (a recovered run). */
  replaying(): boolean {
    return this.inner.replaying?.() ?? false;
  }
}

/** What became of a decision sent to a run through an engine: delivered (once, however often it is sent), or refused. */
export type DecisionDelivery = "sent" | "refused";

/**
 * A run an engine gave up recovering (a crash loop): its id, and the line the operator reads.
 *
 * @example
 * ```ts
 * const run: ExhaustedRun = { runId: "run-1", reason: "the engine gave up after 10 attempts" };
 * ```
 */
export interface ExhaustedRun {
  readonly runId: string;
  readonly reason: string;
}

/**
 * Writes one dead letter with the code `RECOVERY_ATTEMPTS_EXCEEDED` for each run an engine gave up
 * recovering, once per run (a run already lettered with that code is passed over): what the engine
 * adapters' `deadLetterExhaustedRuns` (DBOS) and `deadLetterPausedRuns` (Restate) are made of.
 * Returns the run ids it wrote letters for.
 *
 * @example
 * ```ts
 * const lettered = await deadLetterRuns(store.deadLetters, "support", [{ runId, reason: "paused by the engine" }]);
 * ```
 */
export async function deadLetterRuns(
  deadLetters: DeadLetterQueue,
  agent: string,
  runs: readonly ExhaustedRun[],
): Promise<readonly string[]> {
  const code = "RECOVERY_ATTEMPTS_EXCEEDED";
  const known = new Set((await deadLetters.list()).map((letter) => `${letter.runId}\u0000${letter.errorCode}`));
  const written: string[] = [];
  for (const { runId, reason } of runs) {
    if (known.has(`${runId}\u0000${code}`)) continue;
    known.add(`${runId}\u0000${code}`);
    await deadLetters.append({
      runId,
      agent,
      tool: "",
      arguments: {},
      errorCode: code,
      callIds: [],
      outcomes: [],
      time: new Date().toISOString(),
      reason,
    });
    written.push(runId);
  }
  return written;
}
