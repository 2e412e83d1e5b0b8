import {
  type ApprovalRecord,
  approvalDecisionVerifier,
  type DeadLetterQueue,
  type DecisionDelivery,
  deadLetterRuns,
} from "@needlework/durable";
import { TerminalError, type WorkflowSharedContext } from "@restatedev/restate-sdk";
import {
  RESTATE_RUN_STATE,
  type RestateAwaitedCall,
  restateAwaitedCall,
  restateDecisionPromise,
} from "./restate-execution.js";

/**
 * A decision as the `decide` handler takes it: the call it is for and the reviewer's signed record.
 *
 * @example
 * ```ts
 * const request: RestateDecision = { callId: "call_1_1", record };
 * ```
 */
export interface RestateDecision {
  readonly callId: string;
  readonly record: ApprovalRecord;
}

/**
 * Options of {@link restateDecisionHandlers}.
 *
 * @example
 * ```ts
 * const options: RestateDecisionHandlersOptions = { checkpointSecret: process.env.CHECKPOINT_SECRET! };
 * ```
 */
export interface RestateDecisionHandlersOptions {
  /**
   * The agent's `checkpointSecret` (the one its decisions are signed with): `decide` checks each
   * record with it, as the run's loop does, before it resolves the call's promise.
   */
  readonly checkpointSecret: string | Uint8Array;
}

/**
 * The shared `decide` handler to spread into a workflow that runs needlework runs: it resolves the
 * durable promise a gated call waits on with the reviewer's signed record, once that record
 * verifies (with the agent's `checkpointSecret`, the loop's own check) for this run and the call it
 * waits on, with its tool and arguments. Anything else is answered `"refused"` and resolves nothing,
 * so the wait goes on: a record signed with another secret or for another run, call or arguments,
 * a malformed one, a decision for a call the run is not waiting on, or any decision for a run that
 * has not started or has ended. A second valid decision for one call is not applied (the promise
 * keeps the first; two at once: one resolves it, the other finds it resolved). Each request is
 * answered from the run's state at that moment. The run verifies the record again before it runs
 * anything. Throws a `TypeError` (naming no part of it) without a secret an agent accepts.
 *
 * @example
 * ```ts
 * restate.workflow({
 *   name: "support",
 *   handlers: { run, ...restateDecisionHandlers({ checkpointSecret: process.env.CHECKPOINT_SECRET! }) },
 * });
 * ```
 */
export function restateDecisionHandlers(options: RestateDecisionHandlersOptions): {
  decide: (ctx: WorkflowSharedContext, decision: RestateDecision) => Promise<DecisionDelivery>;
} {
  const secret: unknown = options?.checkpointSecret;
  if (typeof secret !== "string" && !(secret instanceof Uint8Array))
    throw new TypeError(
      "restateDecisionHandlers({ checkpointSecret }): pass the agent's checkpointSecret: decide checks each decision record with it and refuses one that does not verify.",
    );
  const verify = approvalDecisionVerifier(secret);
  return {
    async decide(ctx, decision) {
      if ((await ctx.get<string>(RESTATE_RUN_STATE)) !== "running") return "refused";
      const callId: unknown = decision?.callId;
      if (typeof callId !== "string") return "refused";
      const awaited = await ctx.get<RestateAwaitedCall>(restateAwaitedCall(callId));
      if (awaited === null || awaited === undefined) return "refused";
      const record = decision.record as Partial<ApprovalRecord> | null | undefined;
      const verdict = verify(record, { runId: ctx.key, callId, tool: awaited.tool, arguments: awaited.arguments });
      // Not the reviewer's decision for this call: the promise stays open for it.
      if (verdict === undefined) return "refused";
      const promise = ctx.promise<ApprovalRecord>(restateDecisionPromise(callId));
      if ((await promise.peek()) !== undefined) return "sent";
      try {
        await promise.resolve({ decision: verdict, signature: record!.signature! });
      } catch (error) {
        // Another decision resolved it between the peek and the resolve: that one is applied.
        if (error instanceof TerminalError && (await promise.peek()) !== undefined) return "sent";
        throw error;
      }
      return "sent";
    },
  };
}

/**
 * Sends a reviewer's signed decision for `callId` to run `runId` of workflow `workflow` through the
 * ingress at `ingressUrl` and answers what the `decide` handler answered: `"sent"` while the run
 * waits on the call (a decision for the call is applied, once, however often it is sent),
 * `"refused"` for a record that does not verify for the call (nothing is resolved: the run goes on
 * waiting for the reviewer's), for a call the run is not waiting on, and once the run has ended (or
 * before it started). It sends no idempotency key: Restate would answer a repeat with
 * the first answer, kept for a day, and a decision sent again after the run ended would read
 * `"sent"`; the handler is idempotent itself (the call's promise keeps the first decision). Make
 * `record` with `signApprovalDecision` of `@needlework/durable` (the agent's `checkpointSecret`, the
 * call the reviewer saw): one signed with another secret or for another call is refused and runs
 * nothing.
 *
 * @example
 * ```ts
 * const record = signApprovalDecision(checkpointSecret, { runId, callId: "call_1_1", tool: "refund", arguments }, "approved");
 * await sendRestateDecision(server.ingressUrl, "support", runId, "call_1_1", record);
 * ```
 */
export async function sendRestateDecision(
  ingressUrl: string,
  workflow: string,
  runId: string,
  callId: string,
  record: ApprovalRecord,
): Promise<DecisionDelivery> {
  const url = `${ingressUrl}/${encodeURIComponent(workflow)}/${encodeURIComponent(runId)}/decide`;
  const body: RestateDecision = { callId, record: { decision: record.decision, signature: record.signature } };
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`Restate did not take the decision for ${runId} (${response.status})`);
  return (await response.json()) === "sent" ? "sent" : "refused";
}

/**
 * Options of {@link deadLetterPausedRuns}.
 *
 * @example
 * ```ts
 * await deadLetterPausedRuns({ adminUrl, workflow: "support", agent: "support", deadLetters });
 * ```
 */
export interface DeadLetterPausedRunsOptions {
  /** The Restate admin API (`http://host:9070`). */
  readonly adminUrl: string;
  /** The workflow (service) name. */
  readonly workflow: string;
  /** The agent named in each letter. */
  readonly agent: string;
  /** Where the letters go (a store's `deadLetters`). */
  readonly deadLetters: DeadLetterQueue;
}

/**
 * Turns every paused `run` invocation of `workflow` into a needlework dead letter with the code
 * `RECOVERY_ATTEMPTS_EXCEEDED`, once per run. Give the workflow a bounded retry policy
 * (`options: { retryPolicy: { maxAttempts: 10, onMaxAttempts: "pause" } }`): a crash loop then ends
 * paused, not retried forever, and this is what an operator sees. Reads the admin API's SQL
 * (`sys_invocation`). Returns the run ids it wrote letters for.
 *
 * @example
 * ```ts
 * const lettered = await deadLetterPausedRuns({ adminUrl, workflow: "support", agent: "support", deadLetters });
 * ```
 */
export async function deadLetterPausedRuns(options: DeadLetterPausedRunsOptions): Promise<readonly string[]> {
  const { adminUrl, workflow, agent, deadLetters } = options;
  const quoted = workflow.replaceAll("'", "''");
  const response = await fetch(`${adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      query: `SELECT target_service_key AS key FROM sys_invocation WHERE target_service_name = '${quoted}' AND target_handler_name = 'run' AND status = 'paused'`,
    }),
  });
  if (!response.ok) throw new Error(`Restate's admin API did not answer the query (${response.status})`);
  const { rows } = (await response.json()) as { rows: { key: string }[] };
  return deadLetterRuns(
    deadLetters,
    agent,
    rows.map(({ key }) => ({
      runId: key,
      reason:
        "Restate paused the run after its retry policy's attempts (a crash loop): it is not run again until an operator resumes it.",
    })),
  );
}
