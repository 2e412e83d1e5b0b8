import { ownOptions } from "@needlework/core/internal";
import type { ToolInvoker } from "@needlework/core";
import { selectDefinitions } from "./select-definitions.js";

/**
 * AI SDK 7's per-tool approval statuses: `user-approval` stops the run with a
 * `tool-approval-request` until the caller answers it; `not-applicable` runs the tool at once.
 */
export type AiSdkToolApprovalStatus = "user-approval" | "not-applicable";

/** The `toolApproval` configuration {@link toAiSdkToolApproval} returns (one status per tool name). */
export type AiSdkToolApproval = Readonly<Record<string, AiSdkToolApprovalStatus>>;

/** Options of {@link toAiSdkToolApproval}. */
export interface AiSdkToolApprovalOptions {
  /** Cover only these tools (by needlework name), as given to `toAiSdkTools`. Default: every tool. */
  readonly tools?: readonly string[];
}

/**
 * The `toolApproval` configuration AI SDK 7 prefers on `generateText`/`streamText` (over each tool's
 * deprecated `needsApproval`): every needlework tool declared `requiresApproval` asks for
 * `user-approval`, every other tool is `not-applicable`. The SDK then returns a
 * `tool-approval-request` instead of running the tool; answer it with a `tool-approval-response`
 * in the next call's messages.
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
  const approval: Record<string, AiSdkToolApprovalStatus> = {};
  // Own properties only (a polluted Object.prototype selects no tools), and each entry an own
  // property whatever the tool's name (an assignment to `__proto__` would set a prototype instead).
  for (const definition of selectDefinitions("toAiSdkToolApproval", invoker, ownOptions(options, ["tools"]).tools)) {
    const status = definition.flags.requiresApproval ? "user-approval" : "not-applicable";
    Object.defineProperty(approval, definition.name, {
      value: status,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return approval;
}
