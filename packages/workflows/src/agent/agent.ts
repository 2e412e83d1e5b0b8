import { randomBytes } from "node:crypto";
import { abortReason, formatToolOutcome, type ToolInvoker } from "@needlework/core";
import { nextId } from "@needlework/core/kit";
import type { AgentRuntime } from "./loop/agent-loop.js";
import type { AgentRunResult } from "@needlework/core/events";
import type { RunInfo } from "../plugin.js";
import type { AgentDeps, CreateAgentOptions, ResumeOptions, RunOptions } from "./agent.options.js";
import { type ResolvedAgentOptions, refuseUnverifiableApprovals, resolveAgentOptions } from "./agent-options.schema.js";
import type { ApprovalDecisions } from "./approvals/approval-options.js";
import type { AgentCheckpoint } from "./approvals/checkpoint.js";
import { type DeadLetterQueue, InMemoryDeadLetterQueue } from "@needlework/durable";
import { offeredInvoker, scopeToolInvoker } from "./loop/tool-scope.js";
import { decidePause, type LoopStart, runJournaled } from "./durable/journaled-run.js";
import { AgentMemoryJournal } from "./durable/agent-memory-journal.js";
import { approvePause } from "./approvals/resume.js";
import { callNeedsApproval } from "./approvals/gate.js";
import { newRunState, type RunStart } from "./run-start.js";
import type { RunEventSink } from "./stream/agent-run-stream.js";
import { type AgentRunStream, type AgentRunStreamOptions, createAgentRunStream } from "./stream/agent-run-stream.js";

/**
 * Options of `agent.stream()`: those of `run()`, and the stream's buffer size.
 *
 * @example
 * ```ts
 * const stream = agent.stream("Where is ORD-1?", { signal: AbortSignal.timeout(60_000), bufferSize: 16 });
 * ```
 */
export interface StreamOptions extends RunOptions, Pick<AgentRunStreamOptions, "bufferSize"> {}

/**
 * Options of `agent.resumeStream()`: those of `resume()`, and the stream's buffer size.
 *
 * @example
 * ```ts
 * const stream = agent.resumeStream(checkpoint, { call_1_1: "approved" }, { bufferSize: 16 });
 * ```
 */
export interface ResumeStreamOptions extends ResumeOptions, Pick<AgentRunStreamOptions, "bufferSize"> {}

/**
 * An agent: runs the iterative tool loop over the factory's tools.
 *
 * @example
 * ```ts
 * const result = await agent.run("Where is order ORD-1?", { signal: AbortSignal.timeout(60_000) });
 * console.log(result.status, result.text);
 * ```
 */
export interface Agent {
  readonly name: string;
  /** The `description` option, when given. */
  readonly description: string | undefined;
  /** The system prompt (`instructions`) each of its runs starts with. */
  readonly instructions: string;
  /** The tools this agent offers (and the only ones it runs), after `functionGroups` and `functions`. */
  readonly tools: ToolInvoker;
  /** Where poisoned calls were written (the `deadLetters` option, or this agent's in-memory queue). */
  readonly deadLetters: DeadLetterQueue;
  /**
   * Runs the loop from a user message. Rejects with an AbortError when `signal` aborts (in-flight
   * tools are aborted), and with the tool's exception when a tool throws and the factory has no
   * tool-result middleware (Needlr's default: the turn fails).
   */
  run(input: string, options?: RunOptions): Promise<AgentRunResult>;
  /**
   * Continues an `awaiting_approval` run: the checkpoint's journal (or, with a `store`, the store's
   * journal of the run) is replayed (recorded turns and outcomes are not asked or run again), then
   * approved and ungated calls run under the round's policy, denied ones are answered with
   * `APPROVAL_DENIED`, and the loop goes on. Throws {@link CheckpointError} (and runs nothing) for an
   * altered, foreign-key, too old or already resumed checkpoint, or decisions that do not match it.
   * Once-only lives in the run journal: across processes with a `store`; without one, in this
   * agent instance's journal in memory (once in this process).
   */
  resume(
    checkpoint: AgentCheckpoint | string,
    decisions: ApprovalDecisions,
    options?: ResumeOptions,
  ): Promise<AgentRunResult>;
  /**
   * Runs the loop like {@link Agent.run}, as a stream of events (see `AgentEvent`): iterate it, then
   * await `stream.result`. Breaking out of the iteration, or aborting `signal`, cancels the run.
   */
  stream(input: string, options?: StreamOptions): AgentRunStream;
  /**
   * {@link Agent.resume} as a stream: the paused run's journal replayed (those events marked
   * `replayed: true`), the resumed round's calls, then the rest of the run. Checkpoint and decision
   * errors reject `result` (and the iteration) before anything runs.
   */
  resumeStream(
    checkpoint: AgentCheckpoint | string,
    decisions: ApprovalDecisions,
    options?: ResumeStreamOptions,
  ): AgentRunStream;
  /**
   * Continues a run of this agent whose process died, from the `store`'s journal, on any instance:
   * recorded turns and tool outcomes are reused, never re-executed; a call that started but has no
   * recorded outcome runs again only if its tool is `idempotent` (same `idempotencyKey`), otherwise
   * the model gets `OUTCOME_UNKNOWN`. A finished run returns its recorded result. Throws
   * {@link RunStoreError} (`RUN_NOT_FOUND`, `RUN_AGENT_MISMATCH`) and `TypeError` without a `store`.
   */
  resumeRun(runId: string, options?: ResumeOptions): Promise<AgentRunResult>;
  /**
   * {@link Agent.resumeRun} as a stream: the replayed turns' events, then the live rest of the run.
   * A finished run yields `run-start` and `run-end` with its recorded result. Store and journal
   * errors reject `result` (and the iteration).
   */
  resumeRunStream(runId: string, options?: ResumeStreamOptions): AgentRunStream;
  /**
   * Whether a call of this agent's tools needs a person's decision before it runs: its tool's
   * `requiresApproval`, or this agent's `approvalPolicy` (a policy that throws counts as yes). What
   * runs a call outside a run asks this first: the inspector refuses to replay a dead letter whose
   * call is gated (`APPROVAL_REQUIRED`), since a replay has no decision record.
   */
  needsApproval(call: {
    readonly tool: string;
    readonly arguments: unknown;
    readonly callId?: string;
  }): Promise<boolean>;
}

/** The journal in memory of each agent without a `store`. */
const memoryJournals = new WeakMap<Agent, AgentMemoryJournal>();

/** The journal in memory of an agent without a `store` (what its tests measure). @internal */
export function agentMemoryJournal(agent: Agent): AgentMemoryJournal | undefined {
  return memoryJournals.get(agent);
}

/**
 * Creates an agent over a tool invoker. `factory.createAgent(options)` calls this with the
 * factory's invoker, redaction and output style.
 *
 * @example
 * ```ts
 * const agent = createAgent({ invoker }, { name: "support", instructions: "Answer order questions.", chatClient: new ScriptedChatClient([{ text: "Hi!" }]) });
 * ```
 */
export function createAgent(deps: AgentDeps, options: CreateAgentOptions): Agent {
  if (typeof deps?.invoker?.invoke !== "function")
    throw new TypeError("createAgent: deps.invoker must be a ToolInvoker (factory.tools or createToolInvoker(...)).");
  const resolved = resolveAgentOptions(options);
  if (resolved.resilience !== undefined) {
    throw new TypeError(
      `createAgent: agent '${resolved.name}' sets \`resilience\`, which needs the factory's pipeline: create it with factory.createAgent(...).`,
    );
  }
  // Without a factory, the agent's tools are a filtering view of the invoker.
  const offered = offeredInvoker(resolved.name, deps.invoker, resolved, (_, names) =>
    scopeToolInvoker(deps.invoker, names),
  );
  return agentOf({ ...deps, offered }, resolved);
}

/** What an agent is made of, computed before it is (by `createAgent`, or the factory). @internal */
export interface AgentParts extends AgentDeps {
  /** The tools the agent offers (its `functionGroups`/`functions`); `invoker` holds every tool of its pipeline. */
  readonly offered: ToolInvoker;
}

/**
 * An agent over invokers already made and options already resolved: the factory composes the
 * agent's pipelines first (its own `resilience`, its tool selection), so the agent never calls back
 * into the factory. @internal
 */
export function agentOf(deps: AgentParts, resolved: ResolvedAgentOptions): Agent {
  refuseUnverifiableApprovals(resolved, deps.offered);
  if (resolved.resumedCheckpoints !== undefined && resolved.store === undefined)
    throw new TypeError(
      `createAgent: agent '${resolved.name}' sets \`resumedCheckpoints\` without a \`store\`, and agents no ` +
        "longer ask a claim store: a checkpoint resumes once because the run journal records its pause was " +
        "decided. For once-only across processes, pass `store: new FileRunStore(dir)` (or a PostgresStore) " +
        "instead; without a store, a checkpoint resumes once in this process.",
    );
  const secret = resolved.checkpointSecret;
  // Every tool of the pipeline: the runtime's compensate calls may need tools the agent does not offer.
  const pipeline = deps.invoker;
  const offered = deps.offered;
  const chatClient = deps.wrapChatClient?.(resolved.chatClient) ?? resolved.chatClient;
  const runtime: AgentRuntime = {
    options: chatClient === resolved.chatClient ? resolved : { ...resolved, chatClient },
    invoker: offered,
    runtimeInvoker: pipeline,
    redact: deps.redact ?? ((value) => value),
    formatOutcome: deps.formatOutcome ?? ((outcome) => formatToolOutcome(outcome)),
    deadLetters: resolved.deadLetters ?? resolved.store?.deadLetters ?? new InMemoryDeadLetterQueue(),
    ...(deps.runObservers === undefined || deps.runObservers.length === 0 ? {} : { runObservers: deps.runObservers }),
    ...(deps.callGates === undefined || deps.callGates.length === 0 ? {} : { callGates: deps.callGates }),
    ...(deps.telemetry === undefined ? {} : { telemetry: deps.telemetry }),
    key: secret === undefined ? randomBytes(32) : typeof secret === "string" ? Buffer.from(secret, "utf8") : secret,
  };
  // Every run writes to a journal, and a pause's decision is a journal entry: that is what makes a
  // checkpoint resume once (fenced by the lease). With a `store`, its journal: once across processes.
  // Without one, this agent's own journal in memory: once in this process, holding a run only as long
  // as resume-once needs it (until its checkpoints expire, `checkpointMaxAgeMs`).
  const memory =
    resolved.store === undefined ? new AgentMemoryJournal(resolved.checkpointMaxAgeMs, resolved.clock) : undefined;
  const journal = resolved.store?.journal ?? memory!;
  const wrapRun = deps.wrapRun ?? ((_run: RunInfo, body: () => Promise<AgentRunResult>) => body());

  /**
   * The one execution path behind all six starts: it checks the start, turns it into what the loop
   * starts from (a new state, a verified pause and its decisions, or a journaled run's id), and runs
   * the loop inside `wrapRun` (diagnostics: one span per run) through the one journaled function
   * (`runJournaled`: lease, replay, record), with the `store`'s journal or the agent's own in memory.
   * Every run emits its events into one event stream; a stream's sink is one subscriber.
   */
  async function execute(start: RunStart, signal: AbortSignal | undefined, sink?: RunEventSink) {
    if (signal?.aborted) throw abortReason(signal);
    const info: RunInfo = { agent: resolved.name, resumed: start.kind !== "input", chatClient: resolved.chatClient };
    return wrapRun(info, async () => {
      const begun = start.kind === "approval" ? await approved(start, signal) : loopStart(start);
      return runJournaled(runtime, journal, begun, signal, sink, resolved.execution);
    });
  }

  /**
   * What the loop starts from a new run or a journaled run's id. Synchronous: a run goes into the
   * loop without an await more than before (an abort right after the start finds the loop running).
   */
  function loopStart(start: Exclude<RunStart, { kind: "approval" }>): LoopStart {
    if (start.kind === "journal") return { kind: "journal", runId: start.runId };
    const state = newRunState(start.runId ?? nextId("run"), resolved.instructions, start.input);
    return { kind: "input", state, input: start.input };
  }

  /**
   * An approval start: its checkpoint and decisions verified (see `approvePause`). Whether the pause
   * was decided before is the journal's to say (`runJournaled`); the agent's journal in memory keeps
   * the run until the checkpoint expires. A run inside an engine has its pause decided in the journal
   * first (the engine runs it; the journal makes it resume once).
   */
  async function approved(
    start: Extract<RunStart, { kind: "approval" }>,
    signal: AbortSignal | undefined,
  ): Promise<LoopStart> {
    const pause = await approvePause(runtime, start.checkpoint, start.decisions);
    const { checkpoint } = pause;
    if (signal?.aborted) throw abortReason(signal);
    memory?.keepFor(checkpoint.runId, Date.parse(checkpoint.createdAt));
    if (resolved.execution !== undefined && memory !== undefined) await decidePause(runtime, memory, pause);
    return { kind: "approval", approved: pause };
  }

  /** The streamed form of a start: the same path, with the stream as its sink. */
  function streamed(method: string, start: () => RunStart, options: AgentRunStreamOptions = {}): AgentRunStream {
    const { signal, bufferSize } = options;
    return createAgentRunStream((sink, runSignal) => execute(checked(method, start), runSignal, sink), {
      ...(signal ? { signal } : {}),
      ...(bufferSize === undefined ? {} : { bufferSize }),
    });
  }

  /** Argument checks every start shares; a bad start throws before anything runs. */
  function checked(method: string, start: () => RunStart): RunStart {
    const made = start();
    if (made.kind === "input" && typeof made.input !== "string")
      throw new TypeError(`agent.${method}: input must be the user's message as a string.`);
    if (made.kind === "journal") {
      if (resolved.store === undefined) {
        const why = `agent '${resolved.name}' has no \`store\`; create it with createAgent({ ..., store })`;
        throw new TypeError(`agent.${method}: ${why}.`);
      }
      if (typeof made.runId !== "string" || made.runId === "")
        throw new TypeError(`agent.${method}: pass the runId of a journaled run.`);
    }
    return made;
  }

  const run = (method: string, start: () => RunStart, signal: AbortSignal | undefined) => {
    try {
      return execute(checked(method, start), signal);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const agent: Agent = {
    name: resolved.name,
    description: resolved.description,
    instructions: resolved.instructions,
    tools: runtime.invoker,
    deadLetters: runtime.deadLetters,
    run: (input, options = {}) => run("run", () => ({ kind: "input", input, runId: options.runId }), options.signal),
    stream: (input, options = {}) =>
      streamed("stream", () => ({ kind: "input", input, runId: options.runId }), options),
    resume: (checkpoint, decisions, options = {}) =>
      run("resume", () => ({ kind: "approval", checkpoint, decisions }), options.signal),
    resumeStream: (checkpoint, decisions, options = {}) =>
      streamed("resumeStream", () => ({ kind: "approval", checkpoint, decisions }), options),
    resumeRun: (runId, options = {}) => run("resumeRun", () => ({ kind: "journal", runId }), options.signal),
    resumeRunStream: (runId, options = {}) => streamed("resumeRunStream", () => ({ kind: "journal", runId }), options),
    needsApproval: (call) => callNeedsApproval(offered, resolved.approvalPolicy, call),
  };
  if (memory !== undefined) memoryJournals.set(agent, memory);
  return agent;
}
