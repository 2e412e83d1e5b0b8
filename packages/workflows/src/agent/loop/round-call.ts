import type { AgentFunctionDescriptor, RoundPolicy, ToolInvoker } from "@needlework/core";
import { callIdempotencyKey, nextId } from "@needlework/core/kit";
import type { ChatToolCall } from "@needlework/core";
import { callKey } from "../canonical-json.js";

/** The agent-level scope: calls whose tool group declares no round policy of its own. @internal */
export const AGENT_SCOPE = "agent";

/** One call of a round, with what the runtime needs to schedule it. @internal */
export interface RoundCall {
  /**
   * The call's id in the run: unique within it even when the model repeats an id from an earlier
   * turn. Outcomes, events, the journal, approvals and dead letters use it.
   */
  readonly callId: string;
  /**
   * The id the assistant message and the tool message carry: the provider's own id (made unique
   * within its turn), kept only to pair the tool message with the call it answers.
   */
  readonly messageId: string;
  /** The `idempotencyKey` the tool sees, assigned once here (see {@link CallIdentities}). */
  readonly idempotencyKey: string;
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
 * What a run knows of the call ids and keys it has given out, to name a turn's calls. Read from the
 * run's state, so a replayed run (the journal) or a resumed one (a checkpoint) names them the same.
 * @internal
 */
export interface CallIdentities {
  readonly runId: string;
  /** The model turn the calls belong to. */
  readonly turn: number;
  /** Call ids already used in the run. */
  readonly taken: ReadonlySet<string>;
  /**
   * The first call's key per "same tool, same arguments" (`RoundCall.key`): a repeat reuses it, so a
   * write whose outcome was unknown is not done twice by an API that deduplicates by key. Updated.
   */
  readonly keys: Record<string, string>;
}

/**
 * The one place a call's identity is decided. The id: the provider's when the run has not used it,
 * else `<id>_t<turn>` (a server numbering ids per response repeats them across turns). The key:
 * `<runId>:<callId>`, or the key of the first call of the same tool with the same arguments.
 */
function identify(messageId: string, key: string, ids: CallIdentities, used: Set<string>) {
  let callId = messageId;
  if (ids.taken.has(callId) || used.has(callId)) {
    callId = `${messageId}_t${ids.turn}`;
    while (ids.taken.has(callId) || used.has(callId)) callId = `${callId}_`;
  }
  used.add(callId);
  // `key` is the JSON of a pair, so it is never `__proto__`.
  const idempotencyKey = Object.hasOwn(ids.keys, key)
    ? ids.keys[key]!
    : (ids.keys[key] = callIdempotencyKey(ids.runId, callId));
  return { callId, idempotencyKey };
}

/**
 * The identity of the compensate call that undoes `callId` (an all-or-nothing round rolled back):
 * its own id and key, assigned here with every other call's. @internal
 */
export function undoIdentity(runId: string, callId: string): { callId: string; idempotencyKey: string } {
  const undo = `${callId}_undo`;
  return { callId: undo, idempotencyKey: callIdempotencyKey(runId, undo) };
}

/**
 * Resolves a round's tool calls against the invoker: identity (see {@link CallIdentities}), round
 * policy (the tool group's `roundPolicy`, else the agent's), scope and dependencies. Missing ids,
 * or ids repeated within the turn, are replaced in the messages too.
 * @internal
 */
export function prepareRound(
  toolCalls: readonly ChatToolCall[],
  invoker: ToolInvoker,
  agentPolicy: RoundPolicy,
  ids: CallIdentities,
): RoundCall[] {
  const seen = new Set<string>();
  const used = new Set<string>();
  return toolCalls.map((toolCall) => {
    let messageId = typeof toolCall.id === "string" && toolCall.id !== "" ? toolCall.id : nextId("call");
    if (seen.has(messageId)) messageId = nextId("call");
    seen.add(messageId);
    const key = callKey(toolCall.name, toolCall.arguments);
    const tool = invoker.get(toolCall.name);
    const groupPolicy = tool?.group.roundPolicy;
    return {
      ...identify(messageId, key, ids, used),
      messageId,
      name: toolCall.name,
      arguments: toolCall.arguments,
      key,
      tool,
      policy: groupPolicy ?? agentPolicy,
      scope: groupPolicy !== undefined && tool ? tool.target : AGENT_SCOPE,
      dependsOn: (tool?.options.dependsOn ?? []).filter((name) => name !== toolCall.name),
    };
  });
}
