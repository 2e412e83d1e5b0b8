/*
 * The injection policy through the AI SDK's own approval step. The policy's middleware refuses a
 * call it would put to a person when the caller has no way to ask one; the AI SDK has one
 * (`needsApproval`, and AI SDK 7's `toolApproval`), so the adapter asks the policy first, without
 * running anything, and lets the SDK stop for approval. On the approved replay the call runs once,
 * marked approved, only when the conversation holds a person's approval of that very call.
 */
import type { ToolInvoker } from "@needlework/core";
import { hasCallProbe, type ProbeVerdict, probeCall } from "@needlework/core/internal";
import { APPROVED_BY_PERSON, APPROVED_ITEM } from "@needlework/core/kit";
import type { AiSdkToolCallInfo } from "./tool-call-info.js";

/** The items that tell the policy's middleware a person approved this call. @internal */
export const PERSON_APPROVED: ReadonlyMap<string, unknown> = new Map([[APPROVED_ITEM, APPROVED_BY_PERSON]]);

/** The policy's verdict on a call of one conversation, asked before the call runs. @internal */
export interface PolicyGate {
  verdict(name: string, input: unknown, toolCallId: string, context: unknown): ProbeVerdict | undefined;
}

/**
 * The invoker's gate, or `undefined` when it has none (no injection policy). Without a run id (a
 * `toAiSdkToolApproval` given none) the gate cannot tell which run the call belongs to and says
 * nothing: the tool set's own run (where the call runs) still refuses what the policy gates. @internal
 */
export function gateOf(
  invoker: ToolInvoker,
  runId: string | ((call: AiSdkToolCallInfo) => string | undefined) | undefined,
): PolicyGate | undefined {
  if (!hasCallProbe(invoker)) return undefined;
  return {
    verdict(name, input, toolCallId, context) {
      const tool = invoker.get(name);
      const id = typeof runId === "function" ? runId({ toolName: name, toolCallId, context }) : runId;
      if (tool === undefined || id === undefined) return undefined;
      return probeCall(invoker, { name, tool, arguments: input, runId: id });
    },
  };
}

const partsOf = (message: unknown): readonly unknown[] => {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? content : [];
};

/**
 * True when `messages` hold an approval request for the call `toolCallId` and a response that
 * approves that request (what the SDK replays when a person said yes). @internal
 */
export function approvedInMessages(messages: readonly unknown[] | undefined, toolCallId: string): boolean {
  if (messages === undefined) return false;
  const requests = new Set<string>();
  const approvals = new Set<string>();
  for (const message of messages) {
    for (const part of partsOf(message)) {
      const p = part as { type?: unknown; approvalId?: unknown; toolCallId?: unknown; approved?: unknown };
      if (typeof p.approvalId !== "string") continue;
      if (p.type === "tool-approval-request" && p.toolCallId === toolCallId) requests.add(p.approvalId);
      if (p.type === "tool-approval-response" && p.approved === true) approvals.add(p.approvalId);
    }
  }
  for (const id of requests) if (approvals.has(id)) return true;
  return false;
}
