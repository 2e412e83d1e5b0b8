import { GATE_ITEM, GATED_BY_LOOP } from "./call-gate.types.js";
import {
  abortReason,
  isFailedOutcome,
  type ToolCallReport,
  type ToolInvoker,
  type ToolOutcome,
} from "@needlework/core";
import type { RoundCall } from "./round-call.js";
import { cancelledSibling, skippedCycle, skippedDependency, skippedSibling } from "./synthetic-outcomes.js";
import { cancelledInFlight, cancelOf, skippedCancelled } from "./run-cancel.js";

/** Every call the loop runs has passed its gates (or a person's approval): a gate's middleware lets it through. */
const LOOP_ITEMS: ReadonlyMap<string, unknown> = new Map([[GATE_ITEM, GATED_BY_LOOP]]);

/** What a round needs from the run. @internal */
export interface RoundContext {
  readonly invoker: ToolInvoker;
  readonly runId: string;
  /** The caller's signal: its abort rejects the round (and the run) with an AbortError. */
  readonly signal: AbortSignal | undefined;
  readonly maxConcurrency: number;
  /** Runs the runtime's compensate calls; default `invoker`. An agent scoped to some tools still undoes through tools it does not offer. */
  readonly compensationInvoker?: ToolInvoker;
  /** The run's event stream, as the calls' `InvokeOptions.report` (resilience reports retries there). */
  readonly report?: ((event: ToolCallReport) => void) | undefined;
}

/** A call with its final outcome; `order` is the completion order within the round. @internal */
export interface SettledCall {
  readonly call: RoundCall;
  outcome: ToolOutcome;
  readonly order: number;
}

/** The reason a sibling is aborted with: an AbortError the tool sees on `ctx.signal`. */
function siblingAbort(failed: RoundCall): DOMException {
  return new DOMException(`Sibling call '${failed.name}' (${failed.callId}) failed in a fail-fast round`, "AbortError");
}

/**
 * Runs one round: calls start in the model's order as their dependencies settle, at most
 * `maxConcurrency` at a time, each with its own AbortController. Every call settles on its own
 * (allSettled semantics); a failure applies its scope's policy: `fail-fast` aborts in-flight
 * siblings (recorded `cancelled`) and skips unstarted ones, `all-or-nothing` skips unstarted ones
 * (rollback happens after the round), `best-effort` lets the others run.
 *
 * Rejects when the caller aborts (with the caller's abort reason) or when `invoke` rejects for
 * another reason (a tool exception without the tool-result middleware): in-flight calls are
 * aborted first. An operator's cancel (see run-cancel.ts) aborts in-flight calls too, but settles
 * the round: they are answered `CANCELLED`, unstarted ones `SKIPPED_RUN_CANCELLED`. Resolves with
 * the settled calls in the model's order.
 * @internal
 */
export function runRound(
  context: RoundContext,
  calls: readonly RoundCall[],
  preset: ReadonlyMap<string, ToolOutcome> = new Map(),
): Promise<SettledCall[]> {
  const { invoker, runId, signal: runSignal, maxConcurrency, report } = context;
  return new Promise<SettledCall[]>((resolve, reject) => {
    const settled = new Map<string, SettledCall>();
    const waiting = calls.filter((call) => !preset.has(call.callId));
    const inFlight = new Map<string, { call: RoundCall; controller: AbortController; startedAt: number }>();
    const abortedBy = new Map<string, RoundCall>();
    const firstFailure = new Map<unknown, RoundCall>();
    let order = 0;
    let done = false;

    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      runSignal?.removeEventListener("abort", onRunAbort);
      if (error !== undefined) {
        const reason = runSignal?.aborted ? runSignal.reason : new DOMException("The agent run failed", "AbortError");
        for (const { controller } of inFlight.values()) controller.abort(reason);
        reject(error);
      } else {
        resolve(calls.map((call) => settled.get(call.callId)!));
      }
    };
    function onRunAbort(): void {
      const cancel = cancelOf(runSignal);
      if (cancel === undefined) return finish(abortReason(runSignal!));
      // An operator cancelled the run: every call is aborted and answered, and the round settles.
      runSignal?.removeEventListener("abort", onRunAbort);
      for (const { controller } of inFlight.values()) controller.abort(runSignal!.reason);
      for (const [id, { call, startedAt }] of inFlight) {
        inFlight.delete(id);
        record(call, cancelledInFlight(call, cancel, performance.now() - startedAt));
      }
      for (const call of waiting.splice(0)) record(call, skippedCancelled(call, cancel));
      finish();
    }

    const record = (call: RoundCall, outcome: ToolOutcome): void => {
      settled.set(call.callId, { call, outcome, order: order++ });
      if (!isFailedOutcome(outcome) || firstFailure.has(call.scope)) return;
      firstFailure.set(call.scope, call);
      if (call.policy !== "fail-fast") return;
      for (const [id, running] of inFlight) {
        if (running.call.scope !== call.scope) continue;
        abortedBy.set(id, call);
        running.controller.abort(siblingAbort(call));
      }
    };

    const dependenciesOf = (call: RoundCall): RoundCall[] =>
      call.dependsOn.length === 0 ? [] : calls.filter((other) => other !== call && call.dependsOn.includes(other.name));

    const start = (call: RoundCall): void => {
      const controller = new AbortController();
      const startedAt = performance.now();
      inFlight.set(call.callId, { call, controller, startedAt });
      const options = {
        signal: controller.signal,
        runId,
        idempotencyKey: call.idempotencyKey,
        items: LOOP_ITEMS,
        report,
      };
      invoker.invoke({ name: call.name, arguments: call.arguments, callId: call.callId }, options).then(
        (outcome) => {
          if (done) return;
          inFlight.delete(call.callId);
          record(call, outcome);
          pump();
        },
        (error: unknown) => {
          if (done) return;
          inFlight.delete(call.callId);
          if (runSignal?.aborted) return finish(abortReason(runSignal));
          const failed = abortedBy.get(call.callId);
          if (failed && controller.signal.aborted) {
            record(call, cancelledSibling(call, failed, performance.now() - startedAt));
            return pump();
          }
          finish(error);
        },
      );
    };

    const pump = (): void => {
      if (done) return;
      let progressed = true;
      while (progressed) {
        progressed = false;
        for (const call of [...waiting]) {
          const take = (): void => {
            waiting.splice(waiting.indexOf(call), 1);
            progressed = true;
          };
          const failedSibling = call.policy === "best-effort" ? undefined : firstFailure.get(call.scope);
          if (failedSibling) {
            take();
            record(call, skippedSibling(call, failedSibling));
            continue;
          }
          const dependencies = dependenciesOf(call);
          const failedDependency = dependencies.find((d) => {
            const s = settled.get(d.callId);
            return s !== undefined && isFailedOutcome(s.outcome);
          });
          if (failedDependency) {
            take();
            record(call, skippedDependency(call, failedDependency));
            continue;
          }
          if (dependencies.some((d) => !settled.has(d.callId))) continue;
          if (inFlight.size >= maxConcurrency) continue;
          take();
          start(call);
        }
      }
      if (waiting.length === 0 && inFlight.size === 0) return finish();
      if (inFlight.size === 0) {
        // Nothing runs and nothing can start: the remaining calls wait on each other.
        for (const call of waiting.splice(0)) record(call, skippedCycle(call));
        finish();
      }
    };

    for (const call of calls) {
      const outcome = preset.get(call.callId);
      if (outcome) record(call, outcome);
    }
    if (runSignal?.aborted) return onRunAbort();
    runSignal?.addEventListener("abort", onRunAbort, { once: true });
    pump();
  });
}
