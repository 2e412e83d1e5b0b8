import { createToolOutcome, type ToolOutcome } from "@needlework/core";

/**
 * The outcome a resumed run gives a call that started before its process died and has no recorded
 * outcome, when its tool is not `idempotent`: it may or may not have taken effect, so it is not run
 * again and the model is told to check first.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function outcomeUnknown(tool: string, callId: string, idempotencyKey: string): ToolOutcome {
  return createToolOutcome({
    status: "error",
    errorCode: "OUTCOME_UNKNOWN",
    retriable: false,
    message:
      `The process running '${tool}' (${callId}) stopped before its outcome was recorded: ` +
      "the call may or may not have taken effect.",
    suggestion:
      `Check whether it took effect (read the record back) before calling '${tool}' again; ` +
      "repeating it blindly may apply it twice.",
    metadata: { tool, callId, attempts: 0, latencyMs: 0, idempotencyKey },
  });
}
