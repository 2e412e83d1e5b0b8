import { AsyncLocalStorage } from "node:async_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  type ApprovalRecord,
  type DecisionEvidence,
  type DurableExecution,
  type DurableExecutionFactory,
  type DurableRunInfo,
  type DurableToolCall,
  callStep,
  type EngineExecutionOptions,
  engineExecution,
} from "@needlework/durable";
import type { ToolOutcome } from "@needlework/core";

/**
 * Options of {@link DbosExecution}.
 *
 * @example
 * ```ts
 * const options: DbosExecutionOptions = { decisionTimeoutSeconds: 3600, maxRecordedBytes: 1_000_000 };
 * ```
 */
export interface DbosExecutionOptions extends EngineExecutionOptions {
  /**
   * How long an approval waits on `DBOS.recv` for its decision (default one day). The wait is
   * durable (it survives kill -9); past it the run pauses with a checkpoint, as without an engine.
   */
  readonly decisionTimeoutSeconds?: number;
}

/** The DBOS topic a call's decision record is sent on: `needlework:decision:<callId>`. */
export function dbosDecisionTopic(callId: string): string {
  return `needlework:decision:${callId}`;
}

/** What a decision message carries: the call it is for, and the reviewer's signed record. */
export interface DbosDecisionMessage extends ApprovalRecord {
  readonly callId: string;
}

/** A step as DBOS lists it. */
type StepInfo = NonNullable<Awaited<ReturnType<typeof DBOS.listWorkflowSteps>>>[number];

// Taken when this module loads, outside any workflow: what runs in it is not one of the workflow's steps.
const outsideWorkflow = AsyncLocalStorage.snapshot();

/** True when a recorded `DBOS.recv` output is the decision message for `callId`. */
function decisionFor(output: unknown, callId: string): boolean {
  return typeof output === "object" && output !== null && (output as { callId?: unknown }).callId === callId;
}

/**
 * The run loop over DBOS Transact, inside a DBOS workflow whose id is the run's id: a model turn and a
 * round's start are `DBOS.runStep` steps, each tool call one step (retries off: needlework's own
 * resilience runs inside it), keyed `<runId>:<callId>`; an approval waits on `DBOS.recv` for the
 * signed decision record, which the loop verifies again before anything runs. DBOS recovers the
 * workflow after a crash (same `applicationVersion` only) and replays the recorded steps; a call in
 * flight runs again only when its tool is idempotent, and is otherwise `OUTCOME_UNKNOWN`.
 *
 * @example
 * ```ts
 * const agent = factory.createAgent({ name: "support", instructions, chatClient, execution: DbosExecution.factory() });
 * const support = DBOS.registerWorkflow(
 *   async (input: string) => (await agent.run(input, { runId: DBOS.workflowID })).text,
 *   { name: "support", maxRecoveryAttempts: 5 },
 * );
 * ```
 */
export class DbosExecution implements DurableExecution {
  /** The run's id: the DBOS workflow id. */
  readonly runId: string;
  private readonly inner: DurableExecution;

  /** A factory for `createAgent({ execution })`: one `DbosExecution` per run. */
  static factory(options: DbosExecutionOptions = {}): DurableExecutionFactory {
    return (run) => new DbosExecution(run, options);
  }

  constructor(run: DurableRunInfo, options: DbosExecutionOptions = {}) {
    const workflowID = DBOS.workflowID;
    if (workflowID === undefined) {
      throw new TypeError(
        "DbosExecution runs inside a DBOS workflow: run the agent in a function registered with DBOS.registerWorkflow.",
      );
    }
    if (workflowID !== run.runId) {
      throw new TypeError(
        `DbosExecution: the run's id must be its DBOS workflow id (${workflowID}): run the agent with { runId: DBOS.workflowID }, so a recovered run keeps its idempotency keys.`,
      );
    }
    this.runId = workflowID;
    const timeout = options.decisionTimeoutSeconds ?? 86_400;
    let recordedSteps: Promise<readonly StepInfo[]> | undefined;
    this.inner = engineExecution(
      {
        runId: workflowID,
        step: (name, fn) => DBOS.runStep(fn, { name, retriesAllowed: false }),
        settled: async (callId) => {
          recordedSteps ??= outsideWorkflow(() => DBOS.listWorkflowSteps(workflowID)).then((steps) => steps ?? []);
          const recorded = await recordedSteps;
          const ran = recorded.some((step) => step.name === callStep(callId));
          return ran && !recorded.some((step) => step.name === "DBOS.recv" && decisionFor(step.output, callId));
        },
        waitForDecision: async (callId) => {
          const message = await DBOS.recv<DbosDecisionMessage>(dbosDecisionTopic(callId), timeout);
          return message === null ? undefined : { decision: message.decision, signature: message.signature };
        },
      },
      options,
    );
  }

  /** Runs `fn` as one DBOS step (`DBOS.runStep`, retries off); a recovered run gets the recorded value. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.inner.step(name, fn);
  }

  /** Runs one tool call as one DBOS step recording its outcome (see the class's rules for a call in flight). */
  call(key: string, fn: () => Promise<ToolOutcome>, call: DurableToolCall): Promise<ToolOutcome> {
    return this.inner.call(key, fn, call);
  }

  /** Waits (durably, `DBOS.recv`) for a gated call's signed decision record. */
  waitForDecision(callId: string, gated?: boolean): Promise<DecisionEvidence | undefined> {
    return this.inner.waitForDecision(callId, gated);
  }

  /** The time (epoch ms). */
  now(): number {
    return this.inner.now();
  }

  /** A random number in [0, 1). */
  random(): number {
    return this.inner.random();
  }

  /** True after a step whose recorded value DBOS returned without running it (a recovered run). */
  replaying(): boolean {
    return this.inner.replaying?.() ?? false;
  }
}
