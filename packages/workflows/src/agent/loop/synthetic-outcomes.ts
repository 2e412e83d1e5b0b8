import { createToolOutcome, type ToolOutcome } from "@needlework/core";
import type { RoundCall } from "./round-call.js";

/**
 * Error codes the agent runtime writes itself (never a tool). They do not count toward poison:
 * they say what the runtime did, not that the call is broken.
 * @internal
 */
export const RUNTIME_CODES: ReadonlySet<string> = new Set([
  "SKIPPED_DEPENDENCY_FAILED",
  "SKIPPED_SIBLING_FAILED",
  "CANCELLED_SIBLING_FAILED",
  "CANCELLED",
  "SKIPPED_RUN_CANCELLED",
  "ROLLED_BACK",
  "ROLLBACK_FAILED",
  "APPROVAL_DENIED",
  "APPROVAL_REQUIRED",
  "UNTRUSTED_CONTEXT",
]);

const meta = (call: RoundCall, latencyMs = 0) => ({ tool: call.name, callId: call.callId, attempts: 0, latencyMs });
const ref = (call: RoundCall) => `'${call.name}' (${call.callId})`;

/** A dependency failed in the same round: the call never runs. @internal */
export function skippedDependency(call: RoundCall, dependency: RoundCall): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "SKIPPED_DEPENDENCY_FAILED",
    retriable: true,
    message: `Not called: this call depends on ${ref(dependency)}, which did not succeed in this round. Nothing was changed.`,
    suggestion: `Get '${dependency.name}' to succeed first, then call '${call.name}' again.`,
    metadata: meta(call),
  });
}

/** Dependencies that wait on each other: none of them can run. @internal */
export function skippedCycle(call: RoundCall): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "SKIPPED_DEPENDENCY_FAILED",
    retriable: true,
    message: `Not called: '${call.name}' waits on tools that wait on it in this round (${call.dependsOn.join(", ")}). Nothing was changed.`,
    suggestion: "Call these tools in separate turns, dependencies first.",
    metadata: meta(call),
  });
}

/** A sibling failed under fail-fast or all-or-nothing before this call started. @internal */
export function skippedSibling(call: RoundCall, failed: RoundCall): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "SKIPPED_SIBLING_FAILED",
    retriable: true,
    message: `Not called: ${ref(failed)} failed first and this round is ${call.policy}. Nothing was changed.`,
    suggestion: `Resolve the failure of '${failed.name}', then call '${call.name}' again.`,
    metadata: meta(call),
  });
}

/** An in-flight call aborted because a sibling failed under fail-fast. @internal */
export function cancelledSibling(call: RoundCall, failed: RoundCall, latencyMs: number): ToolOutcome {
  return createToolOutcome({
    status: "cancelled",
    errorCode: "CANCELLED_SIBLING_FAILED",
    retriable: true,
    message: `Cancelled while running because ${ref(failed)} failed in this fail-fast round; the tool may have partly run.`,
    suggestion: "Check whether its change was applied before calling it again.",
    metadata: meta(call, latencyMs),
  });
}

/** A human denied the call. @internal */
export function approvalDenied(call: RoundCall): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "APPROVAL_DENIED",
    retriable: false,
    message: `Not called: a reviewer denied this call to '${call.name}'. Nothing was changed.`,
    suggestion: "Do not call it again; tell the user the action was not approved.",
    metadata: meta(call),
  });
}

/**
 * A gated call about to run without a decision record that proves its approval (for this run, call,
 * tool and arguments): it never runs. @internal
 */
export function approvalMissing(call: RoundCall): ToolOutcome {
  return createToolOutcome({
    status: "skipped",
    errorCode: "APPROVAL_REQUIRED",
    retriable: false,
    message: `Not called: '${call.name}' needs a person's approval, and no valid approval of these arguments was found. Nothing was changed.`,
    suggestion: "Do not call it again; tell the user the action needs their approval.",
    metadata: meta(call),
  });
}
