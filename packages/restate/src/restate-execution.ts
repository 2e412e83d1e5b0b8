import { AsyncLocalStorage } from "node:async_hooks";
import {
  type ApprovalRecord,
  callStep,
  DelegatingExecution,
  type DurableExecution,
  type DurableExecutionFactory,
  type DurableRunInfo,
  type EngineExecutionOptions,
  engineExecution,
} from "@needlework/durable";
import { TerminalError, TimeoutError, type WorkflowContext } from "@restatedev/restate-sdk";

/**
 * Options of {@link RestateExecution}.
 *
 * @example
 * ```ts
 * const options: RestateExecutionOptions = { decisionTimeoutMs: 3_600_000 };
 * ```
 */
export interface RestateExecutionOptions extends EngineExecutionOptions {
  /**
   * How long an approval waits on its durable promise (default one day). The wait survives kill -9
   * of the worker and of the server; past it the run pauses with a checkpoint, as without an engine.
   */
  readonly decisionTimeoutMs?: number;
  /**
   * The server's admin API (`http://host:9070`): lets a replay tell that a call's outcome is journaled
   * by an attempt that did not wait for its decision (read from `sys_journal`, outside the journal).
   * Without it, a gated call always waits on its promise.
   */
  readonly adminUrl?: string;
}

/** The name of the workflow promise a call's decision record resolves: `needlework:decision:<callId>`. */
export function restateDecisionPromise(callId: string): string {
  return `needlework:decision:${callId}`;
}

/**
 * The workflow state key holding what `decide` checks a record for call `callId` against: the call's
 * tool and arguments, set by the run before it waits (never the key: `decide` has its own).
 */
export function restateAwaitedCall(callId: string): string {
  return `needlework:call:${callId}`;
}

/** The call a decision record for `callId` must be signed for, as the run keeps it for `decide`. */
export interface RestateAwaitedCall {
  readonly tool: string;
  readonly arguments: unknown;
}

/** The workflow state key set while a run runs (`"running"`) and when it ended (`"ended"`). */
export const RESTATE_RUN_STATE = "needlework:run";

const contexts = new AsyncLocalStorage<WorkflowContext>();

/** Whether invocation `id`'s journal holds call `callId`'s step and no wait on its decision promise. */
async function journaledWithoutWait(adminUrl: string, id: string, callId: string): Promise<boolean> {
  const response = await fetch(`${adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      query: `SELECT name, entry_lite_json FROM sys_journal WHERE id = '${id.replaceAll("'", "''")}'`,
    }),
  });
  if (!response.ok) return false;
  const { rows } = (await response.json()) as { rows: { name: string | null; entry_lite_json?: string | null }[] };
  // A promise's get is journaled with an empty name: its key is in the entry (`GetPromise.key`).
  const promise = restateDecisionPromise(callId);
  const waited = rows.some((row) => {
    if (!row.entry_lite_json?.includes("GetPromise")) return false;
    const entry = JSON.parse(row.entry_lite_json) as { Command?: { GetPromise?: { key?: string } } };
    return entry.Command?.GetPromise?.key === promise;
  });
  return rows.some((row) => row.name === callStep(callId)) && !waited;
}

/**
 * The run loop over Restate, inside a workflow's `run` handler whose key is the run's id: a model
 * turn and a round's start are journaled `ctx.run` steps, each tool call one `ctx.run` (one attempt:
 * needlework's own resilience runs inside it; a round's calls run one after another, as Restate's SDK
 * awaits one operation at a time), keyed `<runId>:<callId>`; an approval waits on the
 * workflow's durable promise for the signed decision record, which only a record that verifies for
 * the call resolves (`decide` refuses any other), and which the loop verifies again before anything
 * runs. Restate retries the invocation after a crash of the worker or the server and
 * replays its journal; a call in flight runs again only when its tool is idempotent, and is otherwise
 * `OUTCOME_UNKNOWN`. Random numbers come from `ctx.rand` (the same on replay).
 *
 * @example
 * ```ts
 * const agent = factory.createAgent({ name: "support", instructions, chatClient, execution: RestateExecution.factory() });
 * const support = restate.workflow({
 *   name: "support",
 *   handlers: {
 *     run: (ctx: restate.WorkflowContext, input: string) =>
 *       RestateExecution.run(ctx, async () => (await agent.run(input, { runId: ctx.key })).text),
 *     ...restateDecisionHandlers({ checkpointSecret }),
 *   },
 * });
 * ```
 */
export class RestateExecution extends DelegatingExecution {
  /**
   * A factory for `createAgent({ execution })`: one `RestateExecution` per run, over the workflow
   * context {@link RestateExecution.run} holds.
   */
  static factory(options: RestateExecutionOptions = {}): DurableExecutionFactory {
    return (run) => {
      const ctx = contexts.getStore();
      if (ctx === undefined) {
        throw new TypeError(
          "RestateExecution.factory(): run the agent inside RestateExecution.run(ctx, ...) in a Restate workflow's run handler.",
        );
      }
      return new RestateExecution(ctx, run, options);
    };
  }

  /**
   * Runs `body` (the agent's run) with `ctx` as the workflow context of the runs it starts, and
   * marks the workflow's state running, then ended: a decision sent after the end is refused. A run
   * that ends in a terminal error (Restate's cancel of its invocation among them) is ended too; a
   * retryable error leaves it running, for the next attempt.
   */
  static async run<T>(ctx: WorkflowContext, body: () => Promise<T>): Promise<T> {
    ctx.set(RESTATE_RUN_STATE, "running");
    let result: T;
    try {
      result = await contexts.run(ctx, body);
    } catch (error) {
      if (error instanceof TerminalError) ctx.set(RESTATE_RUN_STATE, "ended");
      throw error;
    }
    ctx.set(RESTATE_RUN_STATE, "ended");
    return result;
  }

  constructor(ctx: WorkflowContext, run: DurableRunInfo, options: RestateExecutionOptions = {}) {
    super(restateSteps(ctx, run, options));
  }
}

/** Runs each operation given after the ones given before it have settled. */
function inTurns(): <T>(operation: () => PromiseLike<T>) => Promise<T> {
  let turn: Promise<unknown> = Promise.resolve();
  return (operation) => {
    const next = turn.then(operation, operation);
    turn = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };
}

/** The run's execution over the workflow context's journaled steps and durable promises. */
function restateSteps(ctx: WorkflowContext, run: DurableRunInfo, options: RestateExecutionOptions): DurableExecution {
  if (ctx.key !== run.runId) {
    throw new TypeError(
      `RestateExecution: the run's id must be its workflow key (${ctx.key}): run the agent with { runId: ctx.key }, so a retried invocation keeps its idempotency keys.`,
    );
  }
  const timeout = options.decisionTimeoutMs ?? 86_400_000;
  const inTurn = inTurns();
  return engineExecution(
    {
      runId: ctx.key,
      // Restate's SDK awaits one context operation at a time ("awaitNext already pending" otherwise):
      // the steps of a round's calls are taken in turn, in the order the loop asked for them.
      step: (name, fn) => inTurn(() => ctx.run(name, fn, { maxRetryAttempts: 1 })),
      waitForDecision: async (callId, check) => {
        try {
          return await inTurn(() => {
            // What `decide` checks a record against before it resolves the promise: a record that
            // does not verify for this call must not take the place of the reviewer's.
            if (check !== undefined) {
              const awaited: RestateAwaitedCall = { tool: check.tool, arguments: check.arguments };
              ctx.set(restateAwaitedCall(callId), awaited);
            }
            return ctx.promise<ApprovalRecord>(restateDecisionPromise(callId)).get().orTimeout(timeout);
          });
        } catch (error) {
          if (error instanceof TimeoutError) return undefined;
          throw error;
        }
      },
      random: () => ctx.rand.random(),
      ...(options.adminUrl === undefined
        ? {}
        : { settled: (callId: string) => journaledWithoutWait(options.adminUrl!, ctx.request().id, callId) }),
    },
    options,
  );
}
