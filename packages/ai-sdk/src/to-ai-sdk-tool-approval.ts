import { ownOptions } from "@needlework/core/kit";
import type { ToolInvoker } from "@needlework/core";
import { gateOf } from "./policy-approval.js";
import { selectDefinitions } from "./select-definitions.js";
import type { AiSdkToolCallInfo } from "./tool-call-info.js";

/**
 * AI SDK 7's per-tool approval statuses: `user-approval` stops the run with a
 * `tool-approval-request` until the caller answers it; `not-applicable` runs the tool at once.
 */
export type AiSdkToolApprovalStatus = "user-approval" | "not-applicable";

/** A status with the reason the SDK shows the person approving (on the `tool-approval-request`). */
export interface AiSdkToolApprovalRequest {
  readonly type: "user-approval";
  readonly reason: string;
}

/**
 * AI SDK 7's per-tool approval function: {@link toAiSdkToolApproval} returns one for each tool
 * when the invoker has an injection policy, deciding per call.
 */
export type AiSdkToolApprovalFunction = (
  input: unknown,
  options: { readonly toolCallId: string; readonly toolContext?: unknown },
) => AiSdkToolApprovalStatus | AiSdkToolApprovalRequest;

/** The `toolApproval` configuration {@link toAiSdkToolApproval} returns (one entry per tool name). */
export type AiSdkToolApproval = Readonly<Record<string, AiSdkToolApprovalStatus | AiSdkToolApprovalFunction>>;

/** Options of {@link toAiSdkToolApproval}. */
export interface AiSdkToolApprovalOptions {
  /** Cover only these tools (by needlework name), as given to `toAiSdkTools`. Default: every tool. */
  readonly tools?: readonly string[];
  /**
   * The run id of each call, as given to `toAiSdkTools` (the injection policy tracks what a run
   * read by it). The function reads the tool's entry of `toolsContext` as `context`.
   */
  readonly runId?: string | ((call: AiSdkToolCallInfo) => string | undefined);
}

/**
 * The `toolApproval` configuration AI SDK 7 prefers on `generateText`/`streamText` (over each tool's
 * deprecated `needsApproval`): every needlework tool declared `requiresApproval` asks for
 * `user-approval`, every other tool is `not-applicable`. With an injection policy on the invoker
 * (`usingInjectionPolicy`), each entry is a function: a call the policy would put to a person asks
 * for `user-approval` with the policy's reason (which names the arguments that came from untrusted
 * content). The SDK then returns a `tool-approval-request` instead of running the tool; answer it
 * with a `tool-approval-response` in the next call's messages.
 *
 * @example
 * ```ts
 * const result = await generateText({
 *   model,
 *   tools: toAiSdkTools(factory.tools),
 *   toolApproval: toAiSdkToolApproval(factory.tools),
 *   prompt: "Refund ORD-1",
 * });
 * ```
 */
export function toAiSdkToolApproval(invoker: ToolInvoker, options: AiSdkToolApprovalOptions = {}): AiSdkToolApproval {
  const own = ownOptions(options, ["tools", "runId"]);
  const gate = gateOf(invoker, own.runId);
  const approval: Record<string, AiSdkToolApprovalStatus | AiSdkToolApprovalFunction> = {};
  // Own properties only (a polluted Object.prototype selects no tools), and each entry an own
  // property whatever the tool's name (an assignment to `__proto__` would set a prototype instead).
  for (const definition of selectDefinitions("toAiSdkToolApproval", invoker, own.tools)) {
    const name = definition.name;
    const fixed: AiSdkToolApprovalStatus = definition.flags.requiresApproval ? "user-approval" : "not-applicable";
    // With an injection policy: a call it would put to a person asks, with the policy's reason.
    const entry: AiSdkToolApprovalStatus | AiSdkToolApprovalFunction =
      gate === undefined
        ? fixed
        : (input, call) => {
            const verdict = gate.verdict(name, input, call.toolCallId, call.toolContext);
            return verdict?.action === "approve" ? { type: "user-approval", reason: verdict.reason } : fixed;
          };
    Object.defineProperty(approval, name, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return approval;
}
