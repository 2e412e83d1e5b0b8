import { AsyncLocalStorage } from "node:async_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  type ApprovalRecord,
  callStep,
  type DecisionCheck,
  DelegatingExecution,
  type DurableExecution,
  type DurableExecutionFactory,
  type DurableRunInfo,
  type EngineExecutionOptions,
  engineExecution,
} from "@needlework/durable";

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

/**
 * The step recorded for each message on a call's decision topic that was not its decision (forged,
 * or signed for another run, call or arguments): dropped, never taken as the decision, also on replay.
 *
 * @example
 * ```ts
 * const steps = await DBOS.listWorkflowSteps(runId);
 * const refused = steps?.filter((step) => step.name === dbosRefusedDecisionStep("call_1_1")).length;
 * ```
 */
export function dbosRefusedDecisionStep(callId: string): string {
  return `decision-refused:${callId}`;
}

/**
 * The step recorded when a call's decision wait ends at its deadline with no decision: a replay reads
 * that the call waited (a timed-out `DBOS.recv` records `null`, which names no call), so it waits
 * again from the record, as the first execution did, even once the call's outcome is recorded.
 *
 * @example
 * ```ts
 * const steps = await DBOS.listWorkflowSteps(runId);
 * const timedOut = steps?.some((step) => step.name === dbosDecisionTimedOutStep("call_1_1"));
 * ```
 */
export function dbosDecisionTimedOutStep(callId: string): string {
  return `decision-timed-out:${callId}`;
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
 * signed decision record: a message that does not verify for the call is dropped (a step
 * `decision-refused:<callId>` records it) and the wait goes on, to the same deadline (a wait that
 * ends there with no decision records `decision-timed-out:<callId>`, so a replay waits again); the loop
 * verifies the record again before anything runs. DBOS recovers the
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
export class DbosExecution extends DelegatingExecution {
  /** A factory for `createAgent({ execution })`: one `DbosExecution` per run. */
  static factory(options: DbosExecutionOptions = {}): DurableExecutionFactory {
    return (run) => new DbosExecution(run, options);
  }

  constructor(run: DurableRunInfo, options: DbosExecutionOptions = {}) {
    super(dbosSteps(run, options));
  }
}

/** The run's execution over DBOS's step, recv and step list (inside the workflow whose id is the run's). */
function dbosSteps(run: DurableRunInfo, options: DbosExecutionOptions): DurableExecution {
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
  const timeout = options.decisionTimeoutSeconds ?? 86_400;
  let recordedSteps: Promise<readonly StepInfo[]> | undefined;
  return engineExecution(
    {
      runId: workflowID,
      step: (name, fn) => DBOS.runStep(fn, { name, retriesAllowed: false }),
      settled: async (callId) => {
        recordedSteps ??= outsideWorkflow(() => DBOS.listWorkflowSteps(workflowID)).then((steps) => steps ?? []);
        const recorded = await recordedSteps;
        const ran = recorded.some((step) => step.name === callStep(callId));
        // A call that waited (a message for it received, or its wait timed out) waits again on replay.
        const waited = recorded.some(
          (step) =>
            step.name === dbosDecisionTimedOutStep(callId) ||
            (step.name === "DBOS.recv" && decisionFor(step.output, callId)),
        );
        return ran && !waited;
      },
      waitForDecision: (callId, check) => verifiedDecision(callId, timeout, check),
    },
    options,
  );
}

/**
 * The first message on `callId`'s decision topic that `check` verifies, or `undefined` once the
 * wait's deadline has passed. The deadline and every time read are steps, so a replay drops the same
 * messages and waits until the same time: a forged message sent first is never the decision.
 */
async function verifiedDecision(
  callId: string,
  timeoutSeconds: number,
  check: DecisionCheck | undefined,
): Promise<ApprovalRecord | undefined> {
  const deadlineEpochMS = (await DBOS.now()) + timeoutSeconds * 1000;
  for (;;) {
    const message = await DBOS.recv<DbosDecisionMessage>(dbosDecisionTopic(callId), { deadlineEpochMS });
    // `null` is the timeout's answer, and also what a message of `null` reads as: only the time tells.
    if (message === null) {
      if ((await DBOS.now()) >= deadlineEpochMS) {
        await DBOS.runStep(async () => null, { name: dbosDecisionTimedOutStep(callId), retriesAllowed: false });
        return undefined;
      }
    } else {
      const record =
        typeof message === "object" ? { decision: message.decision, signature: message.signature } : undefined;
      if (record !== undefined && (check === undefined || check.verifies(record))) return record;
    }
    await DBOS.runStep(async () => null, { name: dbosRefusedDecisionStep(callId), retriesAllowed: false });
  }
}
