import type { ChatUsage } from "@needlework/core";
import type { AgentEvent, AgentEventType, AgentRunStatus, RunHealth } from "@needlework/core/events";

/** What a browser gets of `run-end`: never the messages, the instructions or a checkpoint. */
export interface BrowserRunEnd {
  readonly type: "run-end";
  readonly runId: string;
  readonly status: AgentRunStatus;
  readonly text: string;
  readonly health: RunHealth;
  readonly usage: ChatUsage;
}

/** What a browser gets of `approval-required`: the pending calls; the signed checkpoint stays on the server. */
export interface BrowserApprovalRequired {
  readonly type: "approval-required";
  readonly runId: string;
  readonly pending: readonly { readonly callId: string; readonly tool: string; readonly arguments: unknown }[];
}

const KNOWN: ReadonlySet<string> = new Set<AgentEventType>([
  "run-start",
  "turn-start",
  "text-delta",
  "tool-call",
  "tool-retry",
  "tool-result",
  "run-health",
  "correction",
  "approval-required",
  "turn-end",
  "run-end",
]);

/**
 * An event as it may leave for a browser (the SSE and UI-message encoders send only this): `run-end`
 * and `approval-required` projected (see above), other known events as they are, and `undefined`
 * for anything that is not a known `AgentEvent` type, which is never written (no frame forged by a
 * type holding a line break). @internal
 */
export function browserSafe(
  event: AgentEvent,
):
  | Exclude<AgentEvent, { type: "run-end" | "approval-required" }>
  | BrowserRunEnd
  | BrowserApprovalRequired
  | undefined {
  if (typeof event?.type !== "string" || !KNOWN.has(event.type)) return undefined;
  if (event.type === "run-end") {
    const { runId, status, text, health, usage } = event.result;
    return { type: "run-end", runId, status, text, health, usage };
  }
  if (event.type === "approval-required") {
    const pending = event.pending.map(({ callId, tool, arguments: args }) => ({ callId, tool, arguments: args }));
    return { type: "approval-required", runId: event.checkpoint.runId, pending };
  }
  return event;
}
