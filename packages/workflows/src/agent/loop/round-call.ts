import type { AgentFunctionDescriptor, RoundPolicy, ToolInvoker } from "@needlework/core";
import { nextId } from "@needlework/core/internal";
import type { ChatToolCall } from "@needlework/core";
import { callKey } from "../persistence/canonical-json.js";

/** The agent-level scope: calls whose tool group declares no round policy of its own. @internal */
export const AGENT_SCOPE = "agent";

/** One call of a round, with what the runtime needs to schedule it. @internal */
export interface RoundCall {
  readonly callId: string;
  readonly name: string;
  /** As the model sent them. */
  readonly arguments: string | Record<string, unknown>;
  /** "The same call": tool name + canonical arguments. */
  readonly key: string;
  readonly tool: AgentFunctionDescriptor | undefined;
  readonly policy: RoundPolicy;
  /** Calls sharing a scope share a round policy: the agent's, or one per tool group class. */
  readonly scope: unknown;
  readonly dependsOn: readonly string[];
}

/**
 * Resolves a round's tool calls against the invoker: round policy (the tool group's
 * `roundPolicy`, else the agent's), scope and dependencies. Missing or repeated ids are replaced.
 * @internal
 */
export function prepareRound(
  toolCalls: readonly ChatToolCall[],
  invoker: ToolInvoker,
  agentPolicy: RoundPolicy,
): RoundCall[] {
  const seen = new Set<string>();
  return toolCalls.map((toolCall) => {
    let callId = typeof toolCall.id === "string" && toolCall.id !== "" ? toolCall.id : nextId("call");
    if (seen.has(callId)) callId = nextId("call");
    seen.add(callId);
    const tool = invoker.get(toolCall.name);
    const groupPolicy = tool?.group.roundPolicy;
    return {
      callId,
      name: toolCall.name,
      arguments: toolCall.arguments,
      key: callKey(toolCall.name, toolCall.arguments),
      tool,
      policy: groupPolicy ?? agentPolicy,
      scope: groupPolicy !== undefined && tool ? tool.target : AGENT_SCOPE,
      dependsOn: (tool?.options.dependsOn ?? []).filter((name) => name !== toolCall.name),
    };
  });
}
