import type { ChatUserMessage } from "@needlework/core";
import type { RunHealth } from "@needlework/core/events";
import type { BlockingFailure, RoundCounts } from "./run-ledger.js";
import { plural } from "../../text/plural.js";

/**
 * The one-line reminder after a failing round, e.g. "2 tools failed; you must not claim full
 * success." Calls whose tool never ran are counted apart ("1 tool was not called"), so the model
 * does not mistake "no data" for "empty success".
 * @internal
 */
export function failureReminder(counts: RoundCounts, blocking: boolean): string {
  const parts: string[] = [];
  if (counts.failed > 0) parts.push(`${plural(counts.failed, "tool", "tools")} failed`);
  if (counts.notCalled > 0) parts.push(`${plural(counts.notCalled, "tool was", "tools were")} not called`);
  const said = parts.join(" and ");
  return blocking
    ? `${said}; you must not claim full success.`
    : `${said}; no failure is blocking, but do not report results these calls did not return.`;
}

/**
 * The `run_health` block appended after a round with any failure: the round's counts, whether
 * any failure of the run is still blocking, and the reminder line.
 * @internal
 */
export function runHealthMessage(counts: RoundCounts, blocking: boolean): ChatUserMessage {
  const block = runHealthBlock(counts, blocking);
  return {
    role: "user",
    kind: "run_health",
    content: `run_health ${JSON.stringify(block)}\n${failureReminder(counts, blocking)}`,
  };
}

/** The counts of a round's `run_health` block, as the model reads them. @internal */
export function runHealthBlock(counts: RoundCounts, blocking: boolean): RunHealth {
  const { ok, failed, notCalled } = counts;
  return { tools_ok: ok, tools_failed: failed, tools_not_called: notCalled, blocking_failure: blocking };
}

/** Lists blocking failures, telling "failed" apart from "not called". @internal */
export function describeBlocking(blocking: readonly BlockingFailure[]): string {
  return blocking
    .map((b) => `- ${b.tool} (${b.callId}): ${b.errorCode}, ${b.notCalled ? "not called" : "failed"}`)
    .join("\n");
}

/** The guardrail's correction turn after an answer that claims success over blocking failures. @internal */
export function successClaimCorrection(blocking: readonly BlockingFailure[]): ChatUserMessage {
  return {
    role: "user",
    kind: "correction",
    content:
      `Your answer claims success, but ${plural(blocking.length, "tool call has", "tool calls have")} not succeeded and nothing has cleared ${blocking.length === 1 ? "it" : "them"}:\n` +
      `${describeBlocking(blocking)}\n` +
      "Rewrite your final answer: say which actions failed or were not done and what the user should do; do not describe the work as complete or successful.",
  };
}
