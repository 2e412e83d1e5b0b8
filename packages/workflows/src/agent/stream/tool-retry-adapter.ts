import { isToolOutcome, isToolResult, mapThrownError } from "@needlework/core";
import { type RunRetryEvent, runRetryItems } from "../../observability/retry-listener.js";
import type { ToolRetryEvent } from "./agent-event.js";

/**
 * The adapter point between resilience's retry notifications and the stream's `tool-retry`
 * events: the loop passes the returned `items` to every call it invokes, and resilience's
 * `notifyRetry` finds the run's listener there. When resilience raises typed events (`onRetry`
 * with `callId`, `tool`, `attempt`, `delayMs`, `errorCode`), only this function changes.
 * @internal
 */
export function toolRetryItems(emit: (event: ToolRetryEvent) => void): ReadonlyMap<string, unknown> {
  return runRetryItems((event: RunRetryEvent) => {
    const errorCode = errorCodeOfRetry(event.reason);
    emit({
      type: "tool-retry",
      callId: event.callId,
      tool: event.tool,
      attempt: event.attempt,
      delayMs: event.delayMs,
      ...(errorCode === undefined ? {} : { errorCode }),
    });
  });
}

/** The code the model would have read had this attempt been the last: never an exception's message. */
function errorCodeOfRetry(reason: unknown): string | undefined {
  if (isToolResult(reason)) return reason.kind === "fail" ? reason.error.code : undefined;
  if (isToolOutcome(reason)) return reason.errorCode;
  return mapThrownError(reason).code;
}
