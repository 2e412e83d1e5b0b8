import { randomBytes } from "node:crypto";
import { abortReason, formatToolOutcome, type ToolInvoker } from "@needlework/core";
import { nextId } from "@needlework/core/internal";
import { type AgentRuntime, AgentRun, type RunState } from "./loop/agent-loop.js";
import type { AgentRunResult } from "./agent-run-result.js";
import type { AgentDeps, CreateAgentOptions, ResumeOptions, RunOptions } from "./agent.options.js";
import { resolveAgentOptions } from "./agent-options.schema.js";
import type { ApprovalDecisions } from "./policies/approval-options.js";
import { callsNeedingApproval, checkDecisions } from "./policies/approvals.js";
import { type AgentCheckpoint, checkCheckpointScope, verifyCheckpoint } from "./persistence/checkpoint.js";
import { CheckpointError } from "./persistence/checkpoint-error.js";
import { type DeadLetterQueue, InMemoryDeadLetterQueue } from "./persistence/dead-letter-queue.js";
import {
  defaultResumedCheckpointDirectory,
  defaultResumedCheckpoints,
  FileResumedCheckpointStore,
} from "./persistence/resumed-checkpoint-store.js";
import { prepareRound } from "./loop/round-call.js";
import { emptyLedger } from "./loop/run-ledger.js";
import { emptyBudget } from "./policies/budgets.js";
import { emptyStall } from "./policies/stall.js";
import { approvalDenied } from "./loop/synthetic-outcomes.js";
import { describeUnmatched, scopeToolInvoker, selectTools } from "./loop/tool-scope.js";
import { resumeJournaled, runJournaled } from "./durable/journaled-run.js";
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
   * Continues an `awaiting_approval` run: approved and ungated calls run under the round's policy,
   * denied ones are answered with `APPROVAL_DENIED`, then the loop goes on. Throws
   * {@link CheckpointError} (and runs nothing) for an altered, foreign-key or already resumed
   * checkpoint, or decisions that do not match it.
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
   * {@link Agent.resume} as a stream: the resumed round's calls, then the rest of the run. Checkpoint
   * and decision errors reject `result` (and the iteration) before anything runs.
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
}

/** A run's first state: the system prompt and the user's message. */
function newRunState(runId: string, instructions: string, input: string): RunState {
  return {
    runId,
    messages: [
      { role: "system", content: instructions },
      { role: "user", content: input },
    ],
    iteration: 0,
    corrected: false,
    calls: [],
    ledger: emptyLedger(),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    budget: emptyBudget(),
    stall: emptyStall(),
  };
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
  const secret = resolved.checkpointSecret;
  const { composeInvoker } = deps;
  const resilience = resolved.resilience === undefined ? {} : { resilience: resolved.resilience };
  if (resolved.resilience !== undefined && typeof composeInvoker !== "function") {
    throw new TypeError(
      `createAgent: agent '${resolved.name}' sets \`resilience\`, which needs the factory's pipeline: create it with factory.createAgent(...).`,
    );
  }
  // Every tool of the pipeline: the runtime's compensate calls may need tools the agent does not offer.
  const pipeline = resolved.resilience === undefined ? deps.invoker : composeInvoker!(resilience);
  const selected = selectTools(pipeline.tools, resolved);
  const unmatched = describeUnmatched(selected, pipeline.tools);
  if (unmatched !== undefined)
    throw new TypeError(
      `createAgent: agent '${resolved.name}': ${unmatched}. Fix the name, or add the tool class to the factory.`,
    );
  let offered = pipeline;
  if (selected.names !== undefined) {
    const names = selected.names;
    // A pipeline over the selected classes only (observers then see calls to other tools as
    // UNKNOWN_TOOL, as for any unknown name); without a factory, a filtering view does the same.
    offered = composeInvoker
      ? composeInvoker({
          ...resilience,
          classes: [...new Set(pipeline.tools.filter((t) => names.has(t.name)).map((t) => t.target))],
        })
      : scopeToolInvoker(pipeline, names);
  }
  const runtime: AgentRuntime = {
    options: resolved,
    invoker: offered,
    runtimeInvoker: pipeline,
    redact: deps.redact ?? ((value) => value),
    formatOutcome: deps.formatOutcome ?? ((outcome) => formatToolOutcome(outcome)),
    deadLetters: resolved.deadLetters ?? resolved.store?.deadLetters ?? new InMemoryDeadLetterQueue(),
    ...(deps.retryEvents === undefined ? {} : { retryEvents: deps.retryEvents }),
    key: secret === undefined ? randomBytes(32) : typeof secret === "string" ? Buffer.from(secret, "utf8") : secret,
  };
  // With a secret, checkpoints outlive the process, so must the record of resumed ones: the default
  // is then a durable store (an in-memory one would let a checkpoint be replayed after a restart).
  const resumedCheckpoints =
    resolved.resumedCheckpoints ??
    resolved.store?.resumedCheckpoints ??
    (secret === undefined
      ? defaultResumedCheckpoints
      : new FileResumedCheckpointStore(defaultResumedCheckpointDirectory()));
  const journal = resolved.store?.journal;

  /** The one entry of `run()` and `stream()`: without a sink nothing is emitted. */
  async function startRun(
    input: string,
    runId: string | undefined,
    signal: AbortSignal | undefined,
    sink: RunEventSink | undefined,
  ): Promise<AgentRunResult> {
    if (typeof input !== "string") {
      throw new TypeError(`agent.${sink ? "stream" : "run"}: input must be the user's message as a string.`);
    }
    if (signal?.aborted) throw abortReason(signal);
    const state = newRunState(runId ?? nextId("run"), resolved.instructions, input);
    if (journal !== undefined) return runJournaled(runtime, journal, state, input, signal, sink);
    return new AgentRun(runtime, state, signal, sink).loop();
  }

  /** Verifies and claims the checkpoint; the returned function continues the run. */
  async function prepareResume(
    input: AgentCheckpoint | string,
    decisions: ApprovalDecisions,
    signal: AbortSignal | undefined,
    sink: RunEventSink | undefined,
  ): Promise<() => Promise<AgentRunResult>> {
    const checkpoint = verifyCheckpoint(input, runtime.key);
    checkCheckpointScope(checkpoint, resolved.name, resolved.clock(), resolved.checkpointMaxAgeMs);
    const calls = prepareRound(
      checkpoint.pending.map((p) => ({ id: p.callId, name: p.tool, arguments: p.arguments })),
      runtime.invoker,
      resolved.roundPolicy,
    );
    // Never trust the checkpoint's own flags alone: the tool's `requiresApproval` and the current
    // approval policy apply again, so a call they gate needs a decision whatever the checkpoint says.
    const gatedNow = await callsNeedingApproval(calls, resolved.approvalPolicy);
    const pending = checkpoint.pending.map((p, i) => ({
      ...p,
      requiresApproval: p.requiresApproval === true || gatedNow[i] === true,
    }));
    const decided = checkDecisions(pending, decisions);
    if (signal?.aborted) throw abortReason(signal);
    if (!(await resumedCheckpoints.claim(checkpoint.id))) {
      throw new CheckpointError(
        "CHECKPOINT_ALREADY_RESUMED",
        `Checkpoint ${checkpoint.id} (run ${checkpoint.runId}) was already resumed; its calls ran then and will not run again.`,
      );
    }
    // A deep copy: the caller's checkpoint object must stay as it was signed.
    const state = {
      ...(JSON.parse(JSON.stringify(checkpoint.state)) as Omit<RunState, "runId">),
      runId: checkpoint.runId,
    } as RunState;
    // Checkpoints written before budgets and stall detection existed carry neither.
    state.budget ??= emptyBudget();
    state.stall ??= emptyStall();
    const preset = new Map(
      calls.filter((c) => decided.get(c.callId) === "denied").map((c) => [c.callId, approvalDenied(c)] as const),
    );
    return () => new AgentRun(runtime, state, signal, sink).resume(calls, preset);
  }

  return {
    name: resolved.name,
    description: resolved.description,
    tools: runtime.invoker,
    deadLetters: runtime.deadLetters,

    run(input, runOptions = {}) {
      return startRun(input, runOptions.runId, runOptions.signal, undefined);
    },

    async resume(input, decisions, resumeOptions = {}) {
      return (await prepareResume(input, decisions, resumeOptions.signal, undefined))();
    },

    stream(input, streamOptions = {}) {
      const { signal, runId, bufferSize } = streamOptions;
      return createAgentRunStream((sink, runSignal) => startRun(input, runId, runSignal, sink), {
        ...(signal ? { signal } : {}),
        ...(bufferSize === undefined ? {} : { bufferSize }),
      });
    },

    resumeStream(input, decisions, streamOptions = {}) {
      const { signal, bufferSize } = streamOptions;
      return createAgentRunStream(
        async (sink, runSignal) => (await prepareResume(input, decisions, runSignal, sink))(),
        {
          ...(signal ? { signal } : {}),
          ...(bufferSize === undefined ? {} : { bufferSize }),
        },
      );
    },

    resumeRun(runId, resumeOptions = {}) {
      if (journal === undefined) {
        const why = `agent '${resolved.name}' has no \`store\`; create it with createAgent({ ..., store })`;
        return Promise.reject(new TypeError(`agent.resumeRun: ${why}.`));
      }
      return resumeJournaled(runtime, journal, runId, resumeOptions.signal, newRunState);
    },
  };
}
