import { NeedleworkError, type ToolOutcome } from "@needlework/core";
import type { AgentRunStatus, ToolCallRecord } from "@needlework/core/events";
import type { ChatMessage, ChatUsage } from "@needlework/core";

/**
 * What `onIterationStart` learns: the model turn about to be asked for and the run so far.
 *
 * @example
 * ```ts
 * const onIterationStart = ({ iteration, usage }: IterationStartInfo) => log.debug({ iteration, tokens: usage.totalTokens });
 * ```
 */
export interface IterationStartInfo {
  /** The agent's name. */
  readonly agent: string;
  readonly runId: string;
  /** The model turn about to start, from 1 (a correction turn counts, as for `maxIterations`). */
  readonly iteration: number;
  /** A copy of the conversation the model is about to read. */
  readonly messages: readonly ChatMessage[];
  /** Tokens the run has used so far. */
  readonly usage: ChatUsage;
  /** Tool calls the model has made in this run so far. */
  readonly toolCalls: number;
}

/**
 * What `onToolCall` learns about one tool call once its outcome is final (after retries, rollback,
 * or a synthetic outcome such as a skip or a denial). Compensate calls the runtime made are
 * reported too, with `record.compensationFor` set.
 *
 * @example
 * ```ts
 * const onToolCall = ({ record, outcome }: ToolCallInfo) => metrics.count(`tool.${record.tool}.${outcome.status}`);
 * ```
 */
export interface ToolCallInfo {
  readonly agent: string;
  readonly runId: string;
  /** The model turn whose round made the call. */
  readonly iteration: number;
  /** The call's record, as it appears in `result.calls`. */
  readonly record: ToolCallRecord;
  /** The arguments as the model (or the runtime, for a compensate call) sent them. */
  readonly arguments: unknown;
  /** The final outcome; the model reads it rendered by `formatToolOutcome`. */
  readonly outcome: ToolOutcome;
}

/**
 * What `onIterationEnd` learns once a model turn and its round are booked.
 *
 * @example
 * ```ts
 * const onIterationEnd = ({ iteration, calls, status }: IterationEndInfo) => {
 *   if (status) log.info(`run ended ${status} after ${iteration} turns`);
 * };
 * ```
 */
export interface IterationEndInfo {
  readonly agent: string;
  readonly runId: string;
  readonly iteration: number;
  /** The calls of this iteration's round (empty for a text turn), compensate calls included. */
  readonly calls: readonly ToolCallRecord[];
  /** Tokens the run has used so far, this turn included. */
  readonly usage: ChatUsage;
  /** Set when the run ends with this iteration: how it ended. */
  readonly status: AgentRunStatus | undefined;
}

/**
 * The loop's hooks, set on the agent options. Each may be async; the loop awaits it before going
 * on. A hook that throws (or rejects) fails the run with an {@link AgentHookError}; hooks run
 * between steps, so no tool is in flight when that happens.
 *
 * @example
 * ```ts
 * factory.createAgent({
 *   name: "support", instructions, chatClient,
 *   onIterationStart: ({ iteration }) => console.log(`turn ${iteration}`),
 *   onToolCall: async ({ record }) => audit.write(record),
 * });
 * ```
 */
export interface AgentHooks {
  /** Before each model call. */
  readonly onIterationStart?: (info: IterationStartInfo) => void | Promise<void>;
  /** After each tool call of a round settles, in the model's order, then the round's compensate calls. */
  readonly onToolCall?: (info: ToolCallInfo) => void | Promise<void>;
  /** After each model turn and its round are booked, also when the run ends there. */
  readonly onIterationEnd?: (info: IterationEndInfo) => void | Promise<void>;
}

/**
 * The name of a loop hook.
 *
 * @example
 * ```ts
 * const hook: AgentHookName = "onToolCall";
 * ```
 */
export type AgentHookName = keyof AgentHooks;

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  try {
    return `a thrown ${typeof cause}: ${String(cause)}`;
  } catch {
    return `a thrown ${typeof cause}`;
  }
}

/**
 * A loop hook threw: the run was stopped. `hook` names it; `cause` is what it threw. Code
 * `AGENT_HOOK_FAILED`.
 *
 * @example
 * ```ts
 * try { await agent.run("Where is ORD-1?"); }
 * catch (e) { if (e instanceof AgentHookError) console.error(e.hook, e.cause); }
 * ```
 */
export class AgentHookError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_AgentHookError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(AgentHookError, "name", { value: "AgentHookError" });
  }
  /** The hook that threw. */
  readonly hook: AgentHookName;
  /** The agent's name. */
  readonly agent: string;
  readonly runId: string;
  /** The model turn during which it threw. */
  readonly iteration: number;

  constructor(hook: AgentHookName, where: { agent: string; runId: string; iteration: number }, cause: unknown) {
    super(
      "AGENT_HOOK_FAILED",
      `Agent '${where.agent}': the ${hook} hook threw (${describeCause(cause)}) in iteration ${where.iteration} of run ${where.runId}; the run was stopped. ` +
        `Fix the hook, or catch inside it if its failure should not stop the run.`,
      { cause },
    );
    this.hook = hook;
    this.agent = where.agent;
    this.runId = where.runId;
    this.iteration = where.iteration;
  }
}

/** What hook `N` is called with. @internal */
export type AgentHookInfo<N extends AgentHookName> = Parameters<NonNullable<AgentHooks[N]>>[0];
/** What a run adds to a hook's info itself (`agent`, `runId`) left out. @internal */
export type RunHookInfo<N extends AgentHookName> = Omit<AgentHookInfo<N>, "agent" | "runId">;

/**
 * Calls a hook when it is set; anything it throws becomes an {@link AgentHookError}.
 * @internal
 */
export async function callHook<N extends AgentHookName>(
  hooks: AgentHooks,
  name: N,
  info: Parameters<NonNullable<AgentHooks[N]>>[0],
): Promise<void> {
  const hook = hooks[name] as ((value: typeof info) => void | Promise<void>) | undefined;
  if (hook === undefined) return;
  try {
    await hook(info);
  } catch (error) {
    throw new AgentHookError(name, { agent: info.agent, runId: info.runId, iteration: info.iteration }, error);
  }
}
