import { DBOS, type GetWorkflowsInput, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import * as dbosRegistry from "@dbos-inc/dbos-sdk/internal/decorators";
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

/** DBOS's `maxRecoveryAttempts` when a workflow is registered without one (or with 0). */
const DEFAULT_MAX_RECOVERY_ATTEMPTS = 100;

/** Statuses of a workflow that takes no decision any more. */
const ENDED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/**
 * Sends a reviewer's signed decision record for call `callId` to the run waiting on it
 * (`DbosExecution.waitForDecision`), with the idempotency key `<runId>:<callId>:decision:<signature>`:
 * the same record sent twice is delivered once, and a run that ended (or does not exist) refuses it.
 * The key names the record, not only the call: DBOS drops a send whose key it holds, so a key per
 * call would let anyone who sent a forged record first block the reviewer's. Make `record` with
 * `signApprovalDecision` of `@needlework/durable` (the agent's `checkpointSecret`, the call the
 * reviewer saw): the run's wait drops a record that does not verify (signed with another secret, or
 * for another run, call or arguments) and waits on, and the loop verifies it again before anything runs.
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
  await via.send(runId, message, dbosDecisionTopic(callId), `${runId}:${callId}:decision:${signature}`);
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
 * await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support", via: client });
 * ```
 */
export interface DeadLetterExhaustedRunsOptions {
  /** Where the dead letters go (a store's `deadLetters`). */
  readonly deadLetters: DeadLetterQueue;
  /** The agent named in each letter. */
  readonly agent: string;
  /** Only workflows of this DBOS workflow name (default: all). */
  readonly workflowName?: string;
  /** Where the workflows are read and cancelled: a `DBOSClient` before launch, or `DBOS` (default). */
  readonly via?: DbosWorkflowAdmin;
}

/** `DBOS`'s own static members as a {@link DbosWorkflowAdmin} (a launched process). */
const launchedAdmin: DbosWorkflowAdmin = {
  listWorkflows: (input) => DBOS.listWorkflows(input),
  cancelWorkflow: (id) => DBOS.cancelWorkflow(id),
};

/** A workflow this process has registered with DBOS, as DBOS's own recovery looks it up. */
interface Registration {
  readonly name: string;
  readonly workflowConfig?: { readonly maxRecoveryAttempts?: number };
}

/** DBOS's registry of this process's workflows (what `DBOS.registerWorkflow` wrote); not public in DBOS. */
const registry = dbosRegistry as {
  readonly getFunctionRegistrationByName?: (className: string, name: string) => Registration | undefined;
  readonly getAllRegisteredFunctions?: () => readonly Registration[];
};

/** The workflows registered in this process (with DBOS's `registerWorkflow`, or its decorator). */
function registeredWorkflows(): readonly Registration[] {
  if (registry.getAllRegisteredFunctions === undefined || registry.getFunctionRegistrationByName === undefined) {
    throw new Error(
      "deadLetterExhaustedRuns: this version of @dbos-inc/dbos-sdk does not expose its workflow registrations (needed to read each workflow's maxRecoveryAttempts); use the version @needlework/dbos names as its peer",
    );
  }
  return registry.getAllRegisteredFunctions().filter((registration) => registration.workflowConfig !== undefined);
}

/**
 * The `maxRecoveryAttempts` DBOS applies to `run` when it dispatches it in this process: its
 * workflow's registered one, read as DBOS reads it (unset or 0 is DBOS's default, 100). Undefined
 * when this process has not registered the workflow (DBOS could not run it here either).
 */
function registeredLimit(run: WorkflowStatus): number | undefined {
  const config = registry.getFunctionRegistrationByName?.(
    run.workflowClassName ?? "",
    run.workflowName,
  )?.workflowConfig;
  if (config === undefined) return undefined;
  return config.maxRecoveryAttempts ? config.maxRecoveryAttempts : DEFAULT_MAX_RECOVERY_ATTEMPTS;
}

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
 *   run) is restarted for ever. A pending run claimed more than its workflow's `maxRecoveryAttempts`
 *   + 1 times is cancelled in DBOS (`CANCELLED`: `DBOS.resumeWorkflow` runs it again) and lettered.
 *
 * Each run's limit is the one its workflow was registered with in this process
 * (`DBOS.registerWorkflow(fn, { maxRecoveryAttempts })`, DBOS's 100 when unset), the one DBOS itself
 * applies at dispatch: register the workflows first, then call it before `DBOS.launch()` with a
 * `DBOSClient` as `via` (DBOS claims recovered runs as soon as it launches, so a check after the
 * launch may come too late for the process it runs in). It throws when this process has registered
 * no workflow (or none named `workflowName`); a run of a workflow registered elsewhere is left alone.
 * Returns the run ids it wrote letters for.
 *
 * @example
 * ```ts
 * DBOS.registerWorkflow(support, { name: "support", maxRecoveryAttempts: 10 });
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "support", via: client });
 * await client.destroy();
 * await DBOS.launch();
 * ```
 */
export async function deadLetterExhaustedRuns(options: DeadLetterExhaustedRunsOptions): Promise<readonly string[]> {
  const { deadLetters, agent, workflowName, via = launchedAdmin } = options;
  const registered = registeredWorkflows();
  if (!registered.some((registration) => workflowName === undefined || registration.name === workflowName)) {
    const which = workflowName === undefined ? "no workflow" : `no workflow named "${workflowName}"`;
    throw new Error(
      `deadLetterExhaustedRuns: ${which} is registered in this process; register the workflows (DBOS.registerWorkflow) before the call, which reads their maxRecoveryAttempts`,
    );
  }
  const named = workflowName === undefined ? {} : { workflowName };
  const exhausted = await listOrNone(via, { status: "MAX_RECOVERY_ATTEMPTS_EXCEEDED", ...named });
  const pending = await listOrNone(via, { status: ["PENDING", "ENQUEUED"], ...named });
  // DBOS gives up at the dispatch of claim limit + 2: a pending run claimed that often never got there.
  const stranded = pending.flatMap((run) => {
    const limit = registeredLimit(run);
    return limit !== undefined && (run.recoveryAttempts ?? 0) > limit + 1 ? [{ run, limit }] : [];
  });
  for (const { run } of stranded) await via.cancelWorkflow(run.workflowID);
  return deadLetterRuns(deadLetters, agent, [
    ...exhausted.map((run) => ({
      runId: run.workflowID,
      reason: `DBOS gave up recovering the run after ${run.recoveryAttempts ?? "its maximum"} attempts (a crash loop): it is not run again until an operator resumes it (DBOS.resumeWorkflow).`,
    })),
    ...stranded.map(({ run, limit }) => ({
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
