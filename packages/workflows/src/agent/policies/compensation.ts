import { abortReason, createToolOutcome, isFailedOutcome, type ToolOutcome } from "@needlework/core";
import { raceAbort } from "@needlework/core/internal";
import { undoIdentity } from "../loop/round-call.js";
import type { RoundContext, SettledCall } from "../loop/run-round.js";

/** A compensate call the runtime made, for the run's call records. @internal */
export interface CompensationRun {
  readonly forCallId: string;
  readonly tool: string;
  readonly callId: string;
  readonly arguments: unknown;
  /** The key the compensate call was given (recorded with its outcome). */
  readonly idempotencyKey: string;
  readonly outcome: ToolOutcome;
}

interface RollbackReport {
  readonly rolled_back: { tool: string; call_id: string; compensated_by: string }[];
  readonly rollback_failed: { tool: string; call_id: string; error_code: string }[];
}

function undoOf(settled: SettledCall): { tool: string; arguments: unknown } | undefined {
  const option = settled.call.tool?.options.compensate;
  if (option === undefined) return undefined;
  const data = settled.outcome.data;
  if (typeof option === "string") return { tool: option, arguments: data ?? {} };
  const input =
    typeof settled.call.arguments === "string"
      ? (JSON.parse(settled.call.arguments) as Record<string, unknown>)
      : settled.call.arguments;
  return { tool: option.tool, arguments: option.arguments ? option.arguments(input, data) : (data ?? {}) };
}

async function compensate(context: RoundContext, committed: SettledCall): Promise<CompensationRun | { error: string }> {
  let undo: ReturnType<typeof undoOf>;
  try {
    undo = undoOf(committed);
  } catch {
    return { error: "COMPENSATION_ARGUMENTS_FAILED" };
  }
  if (!undo) return { error: "NO_COMPENSATE_TOOL" };
  const { callId, idempotencyKey } = undoIdentity(context.runId, committed.call.callId);
  let outcome: ToolOutcome;
  try {
    const invoker = context.compensationInvoker ?? context.invoker;
    // Raced: an undo tool that ignores its signal must not hold a cancelled run open.
    outcome = await raceAbort(
      invoker.invoke(
        { name: undo.tool, arguments: undo.arguments, callId },
        {
          ...(context.signal ? { signal: context.signal } : {}),
          runId: context.runId,
          idempotencyKey,
        },
      ),
      context.signal,
    );
  } catch (error) {
    if (context.signal?.aborted) throw abortReason(context.signal);
    // Without the tool-result middleware the undo tool's exception surfaces here; it must not
    // leave the round half rolled back and unreported.
    outcome = createToolOutcome({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      exception: error,
      metadata: { tool: undo.tool, callId },
    });
  }
  return {
    forCallId: committed.call.callId,
    tool: undo.tool,
    callId,
    arguments: undo.arguments,
    idempotencyKey,
    outcome,
  };
}

/**
 * Rolls back all-or-nothing scopes that had a failure: each committed (ok) call of the scope is
 * undone through its `compensate` tool exactly once, one at a time, in reverse completion order.
 * Rolled-back calls become `ROLLED_BACK` errors; calls that could not be undone `ROLLBACK_FAILED`
 * (their change remains, their data is kept). Every failing call of the scope gets
 * `metadata.rollback`: `{ rolled_back, rollback_failed }`.
 * @internal
 */
export async function rollBackFailedScopes(
  context: RoundContext,
  settled: readonly SettledCall[],
): Promise<CompensationRun[]> {
  const runs: CompensationRun[] = [];
  const scopes = new Set(
    settled.filter((s) => s.call.policy === "all-or-nothing" && isFailedOutcome(s.outcome)).map((s) => s.call.scope),
  );
  for (const scope of scopes) {
    const members = settled.filter((s) => s.call.scope === scope);
    const failing = members.filter((s) => isFailedOutcome(s.outcome));
    const committed = members.filter((s) => !isFailedOutcome(s.outcome)).sort((a, b) => b.order - a.order);
    const trigger = failing.sort((a, b) => a.order - b.order)[0]!.call;
    const report: RollbackReport = { rolled_back: [], rollback_failed: [] };
    for (const member of committed) {
      const result = await compensate(context, member);
      const { call, outcome: forward } = member;
      const metadata = { ...forward.metadata };
      if ("error" in result || isFailedOutcome(result.outcome)) {
        const code =
          "error" in result ? result.error : (result.outcome.errorCode ?? result.outcome.status.toUpperCase());
        if (!("error" in result)) runs.push(result);
        report.rollback_failed.push({ tool: call.name, call_id: call.callId, error_code: code });
        const why =
          code === "NO_COMPENSATE_TOOL" ? "it declares no `compensate` tool" : `rolling it back failed (${code})`;
        member.outcome = createToolOutcome({
          status: "error",
          errorCode: "ROLLBACK_FAILED",
          retriable: false,
          message: `This call succeeded, but '${trigger.name}' (${trigger.callId}) failed in this all-or-nothing round and ${why}: its change is still in place.`,
          suggestion: "Tell the user exactly which change remains; do not call it again without checking.",
          ...(forward.data === undefined ? {} : { data: forward.data }),
          metadata,
        });
      } else {
        runs.push(result);
        report.rolled_back.push({ tool: call.name, call_id: call.callId, compensated_by: result.tool });
        member.outcome = createToolOutcome({
          status: "error",
          errorCode: "ROLLED_BACK",
          retriable: true,
          message: `This call succeeded, then was rolled back with '${result.tool}' because '${trigger.name}' (${trigger.callId}) failed in this all-or-nothing round. Its change was undone.`,
          suggestion: "Fix the failing call, then repeat the whole set of calls.",
          metadata,
        });
      }
    }
    for (const failed of failing) failed.outcome.metadata.rollback = report;
  }
  return runs;
}
