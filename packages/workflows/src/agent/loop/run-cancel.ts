/*
 * An operator's cancel of a running run (`journal.requestCancel()`), as the loop meets it: the
 * run's signal aborts with a reason this module made, so the loop tells it from the caller's own
 * abort. The round answers its calls (in flight: `cancelled`, `CANCELLED`; not started: `skipped`,
 * `SKIPPED_RUN_CANCELLED`) and the run ends `cancelled` with them journaled. A caller's abort still
 * rejects the run, as before.
 */
import { createToolOutcome, type ToolOutcome } from "@needlework/core";
import type { RunCancelRequest } from "@needlework/durable";
import type { RoundCall } from "./round-call.js";

const requests = new WeakMap<object, RunCancelRequest>();

/** The abort reason of a cancelled run: an AbortError the run's tools see on `ctx.signal`. @internal */
export function cancelReason(request: RunCancelRequest): DOMException {
  const reason = new DOMException("The run was cancelled by an operator", "AbortError");
  requests.set(reason, { by: request.by, at: request.at });
  return reason;
}

/** The cancel request `signal` aborted for, or `undefined` (not aborted, or aborted by its caller). @internal */
export function cancelOf(signal: AbortSignal | undefined): RunCancelRequest | undefined {
  if (signal?.aborted !== true) return undefined;
  const reason: unknown = signal.reason;
  return typeof reason === "object" && reason !== null ? requests.get(reason) : undefined;
}

const meta = (call: RoundCall, latencyMs = 0) => ({ tool: call.name, callId: call.callId, attempts: 0, latencyMs });

/** A call in flight when the run was cancelled: its signal aborted; it may have partly run. @internal */
export function cancelledInFlight(call: RoundCall, request: RunCancelRequest, latencyMs: number): ToolOutcome {
  return createToolOutcome({
    status: "cancelled",
    errorCode: "CANCELLED",
    retriable: false,
    message: `Cancelled while running: ${request.by} cancelled the run; the tool may have partly run.`,
    suggestion: "Check whether its change was applied before calling it again.",
    metadata: { ...meta(call, latencyMs), attempts: 1 },
  });
}

/** A call of the round not started when the run was cancelled. @internal */
export function skippedCancelled(call: RoundCall, request: RunCancelRequest): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "SKIPPED_RUN_CANCELLED",
    retriable: false,
    message: `Not called: ${request.by} cancelled the run. Nothing was changed.`,
    suggestion: "Do not call it again in this run.",
    metadata: meta(call),
  });
}

/**
 * Runs the loop's body; when it throws because the run was cancelled (its signal's reason is a
 * cancel), the run ends `cancelled` instead, with who cancelled it and when. @internal
 */
export async function endedWhenCancelled<End>(
  signal: AbortSignal | undefined,
  body: () => Promise<End>,
): Promise<End | { readonly status: "cancelled"; readonly reason: string }> {
  try {
    return await body();
  } catch (error) {
    const request = cancelOf(signal);
    if (request === undefined) throw error;
    return { status: "cancelled", reason: `cancelled by ${request.by} at ${request.at}` };
  }
}
