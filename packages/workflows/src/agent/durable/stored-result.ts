import type { JsonValue } from "@needlework/core";
import { storedResult as checkedStoredResult } from "@needlework/durable";
import type { AgentRunResult } from "@needlework/core/events";

/**
 * A finished run's result as the journal holds it, checked (`RunStoreError` `RESULT_INVALID` when it
 * cannot be trusted), as the agent's result type. @internal
 */
export function storedResult(runId: string, stored: JsonValue): AgentRunResult {
  return checkedStoredResult(runId, stored) as unknown as AgentRunResult;
}
