import type { ToolInvoker } from "@needlework/core";

/**
 * What the inspector needs of an agent to act on its runs: an agent made by
 * `factory.createAgent()` (`@needlework/workflows`) is one. The inspector depends on this shape,
 * not on the agent framework, so it never loads the builder.
 *
 * @example
 * ```ts
 * const agents: readonly InspectedAgent[] = [factory.createAgent({ name: "support", instructions, chatClient, store })];
 * await startInspector({ store, agents });
 * ```
 */
export interface InspectedAgent {
  readonly name: string;
  /** Replays a dead letter's call (`tools.get` finds it, `tools.invoke` runs it). */
  readonly tools: ToolInvoker;
  /** Continues a paused run with the reviewer's decisions (the checkpoint's signature is checked there). */
  resume(
    checkpoint: object | string,
    decisions: Readonly<Record<string, "approved" | "denied">>,
  ): Promise<{ readonly status: string }>;
  /** Continues an interrupted run from the store's journal. */
  resumeRun(runId: string): Promise<{ readonly status: string }>;
  /**
   * Whether a call needs a person's decision (its tool's `requiresApproval`, or the agent's
   * `approvalPolicy`). A replay has no decision record, so the inspector refuses a gated letter
   * (`APPROVAL_REQUIRED`). An agent object without this method gets every replay refused: the
   * inspector cannot tell which of its calls are gated.
   */
  needsApproval(call: { readonly tool: string; readonly arguments: unknown }): Promise<boolean>;
}
