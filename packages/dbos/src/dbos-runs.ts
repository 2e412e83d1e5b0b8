import { DBOS, type GetWorkflowsInput, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
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

/** DBOS's `maxRecoveryAttempts` when a workflow is registered without one. */
const DEFAULT_MAX_RECOVERY_ATTEMPTS = 100;

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
 * What lists and cancels workflows: a `DBOSClient` (`await DBOSClient.create({ systemDatabaseUrl })`),
 * usable before `DBOS.launch()`, or `DBOS` itself in a launched process.
 *
 * @example
 * ```ts
 * const via: DbosWorkflowAdmin = await DBOSClient.create({ systemDatabaseUrl });
 * ```
 */
export interface DbosWorkflowAdmin {
  listWorkflows(input: GetWorkflowsInput): Promise<WorkflowStatus[]>;
  cancelWorkflow(workflowID: string): Promise<void>;
}

/**
 * Options of {@link deadLetterExhaustedRuns}.
 *
 * @example
 * ```ts
 * await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support", maxRecoveryAttempts: 10, via: client });
 * ```
 */
export interface DeadLetterExhaustedRunsOptions {
  /** Where the dead letters go (a store's `deadLetters`). */
  readonly deadLetters: DeadLetterQueue;
  /** The agent named in each letter. */
  readonly agent: string;
  /** Only workflows of this DBOS workflow name (default: all). */
  readonly workflowName?: string;
  /**
   * The workflows' `maxRecoveryAttempts`, as registered (default DBOS's, 100): a pending run claimed
   * more often than DBOS allows, which DBOS never got to stop, is cancelled and lettered.
   */
  readonly maxRecoveryAttempts?: number;
  /** Where the workflows are read and cancelled: a `DBOSClient` before launch, or `DBOS` (default). */
  readonly via?: DbosWorkflowAdmin;
}

/** `DBOS`'s own static members as a {@link DbosWorkflowAdmin} (a launched process). */
const launchedAdmin: DbosWorkflowAdmin = {
  listWorkflows: (input) => DBOS.listWorkflows(input),
  cancelWorkflow: (id) => DBOS.cancelWorkflow(id),
};

/** The workflows `input` selects; none before DBOS's first launch has made its tables (SQL state 42P01). */
async function listOrNone(via: DbosWorkflowAdmin, input: GetWorkflowsInput): Promise<WorkflowStatus[]> {
  try {
    return await via.listWorkflows(input);
  } catch (error) {
    if ((error as { code?: unknown }).code === "42P01") return [];
    throw error;
  }
}

/**
 * Ends crash loops as needlework dead letters (code `RECOVERY_ATTEMPTS_EXCEEDED`, once per run), so
 * a run that kills its process is what an operator sees and acts on, not an endless restart:
 * - a run DBOS gave up on (`MAX_RECOVERY_ATTEMPTS_EXCEEDED`: killed as it ran, launch after launch);
 * - a run DBOS could not give up on: DBOS counts an attempt when its queue claims a run and checks
 *   the limit only when it dispatches it, so a process that dies between the two (loading a poison
 *   run) is restarted for ever. A pending run claimed more than `maxRecoveryAttempts + 1` times is
 *   cancelled in DBOS (`CANCELLED`: `DBOS.resumeWorkflow` runs it again) and lettered.
 *
 * Call it before `DBOS.launch()` with a `DBOSClient` as `via`: DBOS claims recovered runs as soon as
 * it launches, so a check after the launch may come too late for the process it runs in.
 * Returns the run ids it wrote letters for.
 *
 * @example
 * ```ts
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support", maxRecoveryAttempts: 10, via: client });
 * await client.destroy();
 * await DBOS.launch();
 * ```
 */
export async function deadLetterExhaustedRuns(options: DeadLetterExhaustedRunsOptions): Promise<readonly string[]> {
  const { deadLetters, agent, workflowName, via = launchedAdmin } = options;
  const limit = options.maxRecoveryAttempts ?? DEFAULT_MAX_RECOVERY_ATTEMPTS;
  const named = workflowName === undefined ? {} : { workflowName };
  const exhausted = await listOrNone(via, { status: "MAX_RECOVERY_ATTEMPTS_EXCEEDED", ...named });
  const pending = await listOrNone(via, { status: ["PENDING", "ENQUEUED"], ...named });
  // DBOS gives up at the dispatch of claim limit + 2: a pending run claimed that often never got there.
  const stranded = pending.filter((run) => (run.recoveryAttempts ?? 0) > limit + 1);
  for (const run of stranded) await via.cancelWorkflow(run.workflowID);
  return deadLetterRuns(deadLetters, agent, [
    ...exhausted.map((run) => ({
      runId: run.workflowID,
      reason: `DBOS gave up recovering the run after ${run.recoveryAttempts ?? "its maximum"} attempts (a crash loop): it is not run again until an operator resumes it (DBOS.resumeWorkflow).`,
    })),
    ...stranded.map((run) => ({
      runId: run.workflowID,
      reason: `DBOS claimed the run ${run.recoveryAttempts} times and each process died before it ran it (a crash loop past ${limit} recovery attempts): it was cancelled in DBOS and is not run again until an operator resumes it (DBOS.resumeWorkflow).`,
    })),
  ]);
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
