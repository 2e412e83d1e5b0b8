import { DBOS, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { type ApprovalRecord, type DeadLetterQueue, type DecisionDelivery, deadLetterRuns } from "@needlework/durable";
import { type DbosDecisionMessage, dbosDecisionTopic } from "./dbos-execution.js";

/**
 * What sends a decision and reads a workflow's status: `DBOS` itself in a launched process, or a
 * `DBOSClient` (`await DBOSClient.create({ systemDatabaseUrl })`) in one that only sends.
 *
 * @example
 * ```ts
 * const via: DbosMessenger = await DBOSClient.create({ systemDatabaseUrl });
 * ```
 */
export interface DbosMessenger {
  send<T>(destinationID: string, message: T, topic?: string, idempotencyKey?: string): Promise<void>;
  getWorkflow?(workflowID: string): Promise<WorkflowStatus | undefined>;
  getWorkflowStatus?(workflowID: string): Promise<WorkflowStatus | null>;
}

/** `DBOS`'s own static members as a {@link DbosMessenger} (a launched process). */
const launched: DbosMessenger = {
  send: (id, message, topic, key) => DBOS.send(id, message, topic, key),
  getWorkflowStatus: (id) => DBOS.getWorkflowStatus(id),
};

/** Statuses of a workflow that takes no decision any more. */
const ENDED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/**
 * Sends a reviewer's signed decision record for call `callId` to the run waiting on it
 * (`DbosExecution.waitForDecision`), with the idempotency key `<runId>:<callId>:decision`: a decision
 * sent twice is applied once (DBOS keeps the first), and a run that ended (or does not exist) refuses
 * it. Make `record` with `signApprovalDecision` of `@needlework/durable` (the agent's
 * `checkpointSecret`, the call the reviewer saw): the run verifies it again before it runs anything,
 * and one signed with another secret or for another call runs nothing.
 *
 * @example
 * ```ts
 * const record = signApprovalDecision(checkpointSecret, { runId, callId: "call_1_1", tool: "refund", arguments }, "approved");
 * const delivery = await sendDbosDecision(runId, "call_1_1", record);
 * if (delivery === "refused") console.log("the run has ended");
 * ```
 */
export async function sendDbosDecision(
  runId: string,
  callId: string,
  record: ApprovalRecord,
  via: DbosMessenger = launched,
): Promise<DecisionDelivery> {
  const status = via.getWorkflow ? await via.getWorkflow(runId) : await via.getWorkflowStatus?.(runId);
  if (status === undefined || status === null || ENDED.has(status.status)) return "refused";
  const { decision, signature } = record;
  const message: DbosDecisionMessage = { callId, decision, signature };
  await via.send(runId, message, dbosDecisionTopic(callId), `${runId}:${callId}:decision`);
  return "sent";
}

/**
 * Options of {@link deadLetterExhaustedRuns}.
 *
 * @example
 * ```ts
 * await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support" });
 * ```
 */
export interface DeadLetterExhaustedRunsOptions {
  /** Where the dead letters go (a store's `deadLetters`). */
  readonly deadLetters: DeadLetterQueue;
  /** The agent named in each letter. */
  readonly agent: string;
  /** Only workflows of this DBOS workflow name (default: all). */
  readonly workflowName?: string;
}

/**
 * Turns every DBOS workflow that ran out of recovery attempts (`MAX_RECOVERY_ATTEMPTS_EXCEEDED`: a
 * crash loop, a worker killed again and again as it starts) into a needlework dead letter with the
 * code `RECOVERY_ATTEMPTS_EXCEEDED`, once per run: DBOS stops recovering it, and the letter is what
 * an operator sees and acts on. Call it once after `DBOS.launch()` (and from time to time).
 * Returns the run ids it wrote letters for.
 *
 * @example
 * ```ts
 * await DBOS.launch();
 * const lettered = await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support" });
 * ```
 */
export async function deadLetterExhaustedRuns(options: DeadLetterExhaustedRunsOptions): Promise<readonly string[]> {
  const { deadLetters, agent, workflowName } = options;
  const exhausted = await DBOS.listWorkflows({
    status: "MAX_RECOVERY_ATTEMPTS_EXCEEDED",
    ...(workflowName === undefined ? {} : { workflowName }),
  });
  return deadLetterRuns(
    deadLetters,
    agent,
    exhausted.map((run) => ({
      runId: run.workflowID,
      reason: `DBOS gave up recovering the run after ${run.recoveryAttempts ?? "its maximum"} attempts (a crash loop): it is not run again until an operator resumes it (DBOS.resumeWorkflow).`,
    })),
  );
}

/**
 * A run DBOS will not recover here: pending under another `applicationVersion` than this process's.
 *
 * @example
 * ```ts
 * for (const run of await runsOfOtherVersions("v2")) console.warn(`${run.runId} waits for ${run.applicationVersion}`);
 * ```
 */
export interface OtherVersionRun {
  readonly runId: string;
  readonly workflowName: string;
  readonly applicationVersion: string;
}

/**
 * The pending runs recorded under another application version than `applicationVersion`: DBOS
 * recovers a workflow only on the version that started it (its steps were recorded by that code),
 * so such a run is never replayed on this code, silently or otherwise. Listing them is how a deploy
 * detects the change: keep a worker of the old version until they end, or cancel them.
 *
 * @example
 * ```ts
 * const stranded = await runsOfOtherVersions(process.env.APP_VERSION ?? "v1");
 * ```
 */
export async function runsOfOtherVersions(applicationVersion: string): Promise<readonly OtherVersionRun[]> {
  const pending = await DBOS.listWorkflows({ status: "PENDING" });
  return pending
    .filter((run) => run.applicationVersion !== undefined && run.applicationVersion !== applicationVersion)
    .map((run) => ({
      runId: run.workflowID,
      workflowName: run.workflowName,
      applicationVersion: run.applicationVersion ?? "",
    }));
}
