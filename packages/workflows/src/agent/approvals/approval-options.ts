import type { AgentFunctionDescriptor } from "@needlework/core";

/**
 * What the agent learns about a call when deciding whether it needs approval.
 *
 * @example
 * ```ts
 * const policy = (request: ApprovalRequest) => request.descriptor?.options.tags?.includes("destructive") === true;
 * ```
 */
export interface ApprovalRequest {
  readonly tool: string;
  readonly callId: string;
  /** Parsed when the model sent JSON text. */
  readonly arguments: unknown;
  /** The tool, when it exists. */
  readonly descriptor: AgentFunctionDescriptor | undefined;
}

/**
 * Decides per call whether a human must approve it, on top of `@AgentFunction({ requiresApproval })`.
 *
 * @example
 * ```ts
 * const approvalPolicy: ApprovalPolicy = ({ tool, arguments: args }) =>
 *   tool === "refund" && (args as { amount: number }).amount > 100;
 * ```
 */
export type ApprovalPolicy = (request: ApprovalRequest) => boolean | Promise<boolean>;

/**
 * A reviewer's decision on one call.
 *
 * @example
 * ```ts
 * const decision: ApprovalDecision = reviewer.ok ? "approved" : "denied";
 * ```
 */
export type ApprovalDecision = "approved" | "denied";

/**
 * Decisions by call id; every call the checkpoint lists with `requiresApproval` needs one.
 *
 * @example
 * ```ts
 * await agent.resume(checkpoint, { call_1_2: "approved", call_1_3: "denied" });
 * ```
 */
export type ApprovalDecisions = Readonly<Record<string, ApprovalDecision>>;
