import { type ChatResponse, createToolOutcome, type ToolOutcome, toJsonSafe } from "@needlework/core";
import type { ApprovalRecord } from "./approval-record.js";
import type {
  DecisionCheck,
  DecisionEvidence,
  DurableExecution,
  DurableToolCall,
  RoundStart,
} from "./durable-execution.js";
import { isArtifactPageRecord, journaledOutcome, rebuild } from "./journaled-outcome.js";
import { journaledTurn, recordedResponse } from "./journaled-turn.js";
import { outcomeUnknown } from "./outcome-unknown.js";
import type { JournaledOutcome, JournaledTurn } from "./run-journal.js";

/**
 * What a durable execution engine gives {@link engineExecution}: a durable step and a durable wait.
 * The engine owns replay, recovery and ownership; the adapter (`@needlework/dbos`,
 * `@needlework/restate`, your own) maps these members onto it.
 *
 * @example
 * ```ts
 * const steps: EngineSteps = {
 *   runId: DBOS.workflowID!,
 *   step: (name, fn) => DBOS.runStep(fn, { name, retriesAllowed: false }),
 *   waitForDecision: (callId) => DBOS.recv(`needlework:decision:${callId}`, 3600).then((r) => r ?? undefined),
 * };
 * ```
 */
export interface EngineSteps {
  /** The run's id: the engine's workflow id (or key). */
  readonly runId: string;
  /**
   * Runs `fn` once as one durable step named `name` and records its JSON value; a replay returns the
   * recorded value without calling `fn`. Engine retries must be off: a step that throws fails the run.
   */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Whether the engine's record holds the outcome of `callId` from an execution that did not wait for
   * its decision (a call the loop answered itself): read without a durable operation, so a replay
   * issues the same operations as the execution it replays. Without it, no call counts as settled.
   */
  settled?(callId: string): Promise<boolean>;
  /**
   * The engine's durable wait for the signed decision record of `callId` (`undefined`: none came in
   * time). A record `check` refuses is not the call's decision: the wait drops it and goes on (a
   * forged record sent first must not stand in for the reviewer's), replaying the same way.
   */
  waitForDecision?(callId: string, check?: DecisionCheck): Promise<ApprovalRecord | undefined>;
  /** The time as a replay sees it again (default `Date.now`). */
  now?(): number;
  /** A random number as a replay sees it again (default `Math.random`). */
  random?(): number;
}

/**
 * Options of {@link engineExecution}.
 *
 * @example
 * ```ts
 * engineExecution(steps, { maxRecordedBytes: 1_000_000 });
 * ```
 */
export interface EngineExecutionOptions {
  /**
   * The largest outcome (serialized) a step records (default 2 MB, under every engine's payload
   * limit). A larger one is recorded as a `RESULT_TOO_LARGE` error, never retried: store big results
   * as artifacts (`usingArtifacts()`), whose reference is what the step records.
   */
  readonly maxRecordedBytes?: number;
}

/** The default of {@link EngineExecutionOptions.maxRecordedBytes}: 2 MB. */
export const DEFAULT_MAX_RECORDED_BYTES = 2 * 1024 * 1024;

/** The step name of a tool call: `call:<callId>`. */
export function callStep(callId: string): string {
  return `call:${callId}`;
}

function tooLarge(tool: string, callId: string, bytes: number, limit: number): ToolOutcome {
  return createToolOutcome({
    status: "error",
    retriable: false,
    errorCode: "RESULT_TOO_LARGE",
    message: `The result of ${tool} (${bytes} bytes serialized) is over the ${limit} bytes a durable step records.`,
    suggestion: "Store large results as artifacts (usingArtifacts()): the step records the reference, not the bytes.",
    metadata: { tool, callId },
  });
}

/**
 * A {@link DurableExecution} over an engine's durable step: what `@needlework/dbos` and
 * `@needlework/restate` are made of. A model turn is a step (`turn:<i>`), a round's start is one
 * step (`round:<turn>`: n + 1 steps a round, not 2n), each tool call is one step (`call:<callId>`)
 * that records the outcome as JSON and never throws for the tool's sake. A round's start step whose
 * body did not run in this execution was recorded by an earlier one: its calls without a recorded
 * outcome were in flight at the crash, so an idempotent (or read-only) one runs again with the same
 * key and any other is `OUTCOME_UNKNOWN` (the built-in journal's rule).
 *
 * @example
 * ```ts
 * const execution = engineExecution({ runId, step: (name, fn) => ctx.run(name, fn, { maxRetryAttempts: 1 }) });
 * ```
 */
export function engineExecution(steps: EngineSteps, options: EngineExecutionOptions = {}): DurableExecution {
  const limit = options.maxRecordedBytes ?? DEFAULT_MAX_RECORDED_BYTES;
  /** Keys of calls whose round's start an earlier execution recorded: in doubt when not settled. */
  const inDoubt = new Set<string>();
  let replayed = false;

  /** Runs `fn` through the engine's step; `ran` tells whether this execution ran it. */
  async function durable<R, T>(name: string, fn: () => Promise<T>, record: (value: T) => R) {
    let ran = false;
    let fresh: T | undefined;
    const recorded = await steps.step<R>(name, async () => {
      ran = true;
      fresh = await fn();
      return record(fresh);
    });
    replayed = !ran;
    return { ran, fresh: fresh as T, recorded };
  }

  const execution: DurableExecution = {
    runId: steps.runId,
    replaying: () => replayed,
    now: () => (steps.now ? steps.now() : Date.now()),
    random: () => (steps.random ? steps.random() : Math.random()),
    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      if (name.startsWith("turn:")) {
        const index = Number(name.slice(5));
        const turn = await durable<JournaledTurn | null, T>(name, fn, (response) =>
          response === undefined ? null : journaledTurn(index, response as ChatResponse),
        );
        if (turn.ran) return turn.fresh;
        return (turn.recorded === null ? undefined : recordedResponse(turn.recorded)) as T;
      }
      const result = await durable<unknown, T>(name, fn, (value) => toJsonSafe(value ?? null));
      if (name.startsWith("round:") && !result.ran) {
        const start = result.recorded as RoundStart | null;
        for (const key of start?.keys ?? []) inDoubt.add(key);
      }
      return result.ran ? result.fresh : (result.recorded as T);
    },
    async call(key: string, fn: () => Promise<ToolOutcome>, call: DurableToolCall): Promise<ToolOutcome> {
      const { callId, tool } = call;
      let bounded = false;
      const outcome = await durable<JournaledOutcome, ToolOutcome>(
        callStep(callId),
        async () => {
          const again = call.runs && inDoubt.has(key) && !call.idempotent && !call.readOnly;
          return again ? outcomeUnknown(tool, callId, key) : fn();
        },
        (settled) => {
          const journaled = journaledOutcome(settled, "", callId, key);
          const bytes = Buffer.byteLength(JSON.stringify(journaled));
          if (bytes <= limit) return journaled;
          bounded = true;
          return journaledOutcome(tooLarge(tool, callId, bytes, limit), "", callId, key);
        },
      );
      if (outcome.ran && !bounded) return outcome.fresh;
      // A page read from an artifact is recorded as a reference: read again (the call is read-only).
      if (!outcome.ran && isArtifactPageRecord(outcome.recorded)) {
        const page = await fn();
        Object.assign(page.metadata, structuredClone(outcome.recorded.outcome.metadata));
        return page;
      }
      return rebuild(outcome.recorded);
    },
    async waitForDecision(
      callId: string,
      gated?: boolean,
      check?: DecisionCheck,
    ): Promise<DecisionEvidence | undefined> {
      if (steps.settled !== undefined && (await steps.settled(callId))) return "settled";
      if (gated !== true || steps.waitForDecision === undefined) return undefined;
      return steps.waitForDecision(callId, check);
    },
  };
  return execution;
}
