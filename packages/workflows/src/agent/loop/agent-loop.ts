import { randomBytes } from "node:crypto";
import { abortReason, type ToolInvoker, type ToolOutcome } from "@needlework/core";
import type {
  AgentRunResult,
  AwaitingApprovalRunResult,
  CompletedRunResult,
  StoppedRunResult,
  ToolCallRecord,
} from "../agent-run-result.js";
import type { ResolvedAgentOptions } from "../agent-options.schema.js";
import { callsNeedingApproval } from "../policies/approvals.js";
import {
  answerNowNote,
  type BudgetState,
  callsOverLimit,
  notRunOutcome,
  tokenPressureNote,
  tokensSpent,
  toolCallLimitOutcome,
  toolsWithdrawn,
  underTokenPressure,
} from "../policies/budgets.js";
import type {
  ChatAssistantMessage,
  ChatClient,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatUsage,
} from "@needlework/core";
import { type AgentCheckpoint, type PendingApproval, signCheckpoint } from "../persistence/checkpoint.js";
import { rollBackFailedScopes } from "../policies/compensation.js";
import type { DeadLetterQueue } from "../persistence/dead-letter-queue.js";
import { checkFinalAnswer } from "../policies/final-answer.js";
import { type AgentHookName, type AgentHooks, callHook } from "../hooks.js";
import { type CallIdentities, prepareRound, type RoundCall } from "./round-call.js";
import { runHealthBlock, runHealthMessage, successClaimCorrection } from "./run-health.js";
import { bookRound, type LedgerState, type PoisonCount, runHealth } from "./run-ledger.js";
import { type RoundContext, runRound, type SettledCall } from "./run-round.js";
import { resetStall, type StallState, trackStall } from "../policies/stall.js";
import { claimsSuccess } from "../policies/success-claim.js";
import { wasNotCalled } from "./synthetic-outcomes.js";
import { raceAbort } from "./race-abort.js";
import type { AgentEvent } from "../stream/agent-event.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { collectChatStream } from "../stream/collect-chat-stream.js";
import type { ResilienceEvents } from "../../resilience/resilience-events.js";
import { subscribeToolRetries } from "../stream/tool-retry-adapter.js";
import { plural } from "../../text/plural.js";

/** Everything a run needs from its agent. @internal */
export interface AgentRuntime {
  readonly options: ResolvedAgentOptions;
  /** The tools the agent offers and allows (scoped by `functionGroups`/`functions`). */
  readonly invoker: ToolInvoker;
  /** Every tool of the pipeline: the runtime's own compensate calls run through it. */
  readonly runtimeInvoker: ToolInvoker;
  readonly redact: (value: unknown) => unknown;
  readonly formatOutcome: (outcome: ToolOutcome) => string;
  readonly deadLetters: DeadLetterQueue;
  readonly key: Uint8Array;
  /** True while a resumed run replays its journal: hooks already fired for those turns. */
  readonly replaying?: () => boolean;
  /** True for a round whose approvals were decided before (a journaled run replayed past its resume). */
  readonly decided?: (round: readonly RoundCall[]) => boolean;
  /** Resilience's typed events in the pipeline; a streamed run turns its calls' retries into `tool-retry`. */
  readonly retryEvents?: readonly ResilienceEvents[];
}

/** A run's state: plain JSON, so a checkpoint carries it whole. @internal */
export interface RunState {
  readonly runId: string;
  messages: ChatMessage[];
  /** Model turns taken. */
  iteration: number;
  /** The run's one correction turn (guardrail or final-answer contract) is used. */
  corrected: boolean;
  calls: ToolCallRecord[];
  ledger: LedgerState;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  budget: BudgetState;
  stall: StallState;
  /**
   * The first call's `idempotencyKey` per "same tool, same arguments" (`RoundCall.key`): a repeat
   * in the run reuses it, so a write whose outcome was unknown is not done twice by a careful API.
   */
  idempotencyKeys?: Record<string, string>;
}

/**
 * What names the next turn's calls (see `prepareRound`): the ids the run has used (its recorded
 * calls) and its keys. Derived from the state alone, so a replay or a resume names them the same.
 * @internal
 */
export function callIdentities(state: RunState): CallIdentities {
  return {
    runId: state.runId,
    turn: state.iteration,
    taken: new Set(state.calls.map((c) => c.callId)),
    keys: (state.idempotencyKeys ??= {}),
  };
}

/** How a run ends: its status and the fields that status carries (see {@link AgentRunResult}). */
type RunEnd =
  | Pick<CompletedRunResult, "status" | "output">
  | Pick<AwaitingApprovalRunResult, "status" | "checkpoint" | "pendingApprovals">
  | Pick<StoppedRunResult, "status" | "reason">;

/**
 * One run of the loop: ask the model, run the round it asks for, book the outcomes, and stop on a
 * final answer or a limit. Each step is its own method (`turn`, `round`, `conclude`) so budgets,
 * stall detection, hooks and tracing can attach around them. Budgets and limits end a run with a
 * result (`budget_exhausted`), never an abort: they act only between steps, so nothing in flight
 * is cut off.
 *
 * `run()` and `stream()` share it: with an event sink (a stream), each step also emits its
 * {@link AgentEvent}s, awaited so a slow consumer slows the run, and the model is read through
 * `chatClient.stream()` when it has one; without a sink nothing is emitted.
 * @internal
 */
export class AgentRun {
  /** The current turn's model usage, for its `turn-end` event. */
  private turnUsage: ChatUsage | undefined;
  /** Why `conclude` just asked for a correction, for the `correction` event. */
  private correction: string | undefined;

  constructor(
    private readonly runtime: AgentRuntime,
    private readonly state: RunState,
    private readonly signal: AbortSignal | undefined,
    private readonly events?: RunEventSink,
  ) {}

  /** Loops until a final answer, a pause or a limit. */
  loop(): Promise<AgentRunResult> {
    // Without a stream, not even an await more than before: run()'s timing stays as it was.
    return this.events ? this.bracket(() => this.turns()) : this.turns();
  }

  /** Continues a resumed run: the paused round first (denied calls preset), then the loop. */
  resume(calls: readonly RoundCall[], preset: ReadonlyMap<string, ToolOutcome>): Promise<AgentRunResult> {
    return this.events ? this.bracket(() => this.resumed(calls, preset)) : this.resumed(calls, preset);
  }

  private async resumed(calls: readonly RoundCall[], preset: ReadonlyMap<string, ToolOutcome>) {
    const callsBefore = this.state.calls.length;
    this.turnUsage = undefined;
    const outcome = await this.round(calls, preset);
    await this.iterationEnd(callsBefore, outcome);
    if (this.events) await this.emit({ type: "turn-end", turn: this.state.iteration });
    return outcome ?? this.turns();
  }

  /** `run-start` first; `approval-required` for a pause; `run-end` last. */
  private async bracket(body: () => Promise<AgentRunResult>): Promise<AgentRunResult> {
    if (this.events) await this.emit({ type: "run-start", runId: this.state.runId, agent: this.runtime.options.name });
    const result = await body();
    if (this.events && result.status === "awaiting_approval") {
      await this.emit({
        type: "approval-required",
        checkpoint: result.checkpoint,
        pending: result.pendingApprovals,
      });
    }
    if (this.events) await this.emit({ type: "run-end", result });
    return result;
  }

  /** Hands an event to the stream, if any; waits while its buffer is full. */
  private emit(event: AgentEvent): Promise<void> | undefined {
    return this.events?.emit(event);
  }

  private async turns(): Promise<AgentRunResult> {
    const { options } = this.runtime;
    for (;;) {
      if (this.signal?.aborted) throw abortReason(this.signal);
      if (this.state.iteration >= options.maxIterations) {
        return this.result({
          status: "max_iterations",
          reason: `Stopped after ${plural(options.maxIterations, "model turn")} (maxIterations) without an accepted final answer.`,
        });
      }
      if (tokensSpent(this.state.usage, options.limits))
        return this.result({
          status: "budget_exhausted",
          reason: `${this.tokensUsed()}; the run was stopped before the next model turn.`,
        });
      await this.hook("onIterationStart", {
        iteration: this.state.iteration + 1,
        messages: [...this.state.messages],
        usage: { ...this.state.usage },
        toolCalls: this.state.budget.toolCalls,
      });
      const callsBefore = this.state.calls.length;
      const outcome = await this.turn();
      await this.iterationEnd(callsBefore, outcome);
      const usage = this.turnUsage ? { usage: this.turnUsage } : {};
      if (this.events) await this.emit({ type: "turn-end", turn: this.state.iteration, ...usage });
      if (outcome) return outcome;
    }
  }

  /** One model turn and whatever it asks for; a result when the run ends here. */
  private async turn(): Promise<AgentRunResult | undefined> {
    const { options, invoker } = this.runtime;
    this.state.iteration++;
    this.turnUsage = undefined;
    if (this.events) await this.emit({ type: "turn-start", turn: this.state.iteration });
    // Once a tool limit is reached the model is offered no tools and asked (by a budget note) to answer.
    const withdrawn = toolsWithdrawn(this.state.budget, options.limits);
    const tools = withdrawn === undefined ? invoker.definitions : [];
    const response = await this.ask({
      messages: [...this.state.messages],
      tools,
      ...(this.signal ? { signal: this.signal } : {}),
    });
    this.turnUsage = response.usage;
    if (response.usage) {
      this.state.usage.inputTokens += response.usage.inputTokens;
      this.state.usage.outputTokens += response.usage.outputTokens;
      this.state.usage.totalTokens += response.usage.totalTokens;
    }
    const { content, toolCalls = [] } = response.message;
    const calls =
      toolCalls.length > 0 ? prepareRound(toolCalls, invoker, options.roundPolicy, callIdentities(this.state)) : [];
    const message: ChatAssistantMessage = {
      role: "assistant",
      ...(content === undefined ? {} : { content }),
      ...(calls.length === 0
        ? {}
        : { toolCalls: calls.map((c) => ({ id: c.messageId, name: c.name, arguments: c.arguments })) }),
    };
    this.state.messages.push(message);
    if (calls.length === 0) {
      // A text answer ends the iteration: tool rounds and stall series start again after it.
      this.state.budget.roundsInIteration = 0;
      resetStall(this.state.stall);
      const concluded = this.conclude(content ?? "");
      const reason = this.correction;
      if (this.events && reason !== undefined)
        await this.emit({ type: "correction", turn: this.state.iteration, reason });
      this.correction = undefined;
      return concluded;
    }
    if (withdrawn !== undefined) {
      return this.refuse(
        calls,
        "TOOLS_WITHDRAWN",
        `tools were withdrawn because ${withdrawn}`,
        `The model called tools after they were withdrawn because ${withdrawn}`,
      );
    }
    if (tokensSpent(this.state.usage, options.limits)) {
      return this.refuse(calls, "TOKEN_BUDGET_EXHAUSTED", "the run's token budget is spent", this.tokensUsed());
    }
    // Calls beyond maxTotalToolCalls never run, so they are never put to a reviewer either.
    const over = callsOverLimit(calls, this.state.budget, options.limits);
    const admitted = calls.filter((c) => !over.has(c.callId));
    const gatedAdmitted = await raceAbort(callsNeedingApproval(admitted, options.approvalPolicy), this.signal);
    const gated = calls.map((c) => gatedAdmitted[admitted.indexOf(c)] === true);
    if (gated.some(Boolean) && this.runtime.decided?.(calls) !== true) return this.pause(calls, gated);
    return this.round(calls, new Map());
  }

  /**
   * One model call. A stream reads `chatClient.stream()` when the client has it (a text-delta event
   * per delta); otherwise, or for `run()`, `complete()` (a stream then gets the text as one delta).
   */
  private ask(request: ChatRequest): Promise<ChatResponse> {
    const client = this.runtime.options.chatClient;
    return this.events ? this.askStreaming(client, request) : raceAbort(client.complete(request), this.signal);
  }

  private async askStreaming(client: ChatClient, request: ChatRequest): Promise<ChatResponse> {
    const turn = this.state.iteration;
    if (typeof client.stream === "function") {
      const onDelta = (delta: string) => this.emit({ type: "text-delta", turn, delta });
      return collectChatStream(client.stream(request), this.signal, onDelta);
    }
    const response = await raceAbort(client.complete(request), this.signal);
    const text = response.message.content;
    if (text !== undefined && text !== "") await this.emit({ type: "text-delta", turn, delta: text });
    return response;
  }

  /** `tool-call` for each call of a round, in the model's order, before any of them runs. */
  private async announce(calls: readonly RoundCall[], turn: number): Promise<void> {
    for (const { callId, name, arguments: args } of calls) {
      await this.emit({ type: "tool-call", turn, callId, tool: name, arguments: args });
    }
  }

  /** A call's tool message, and (streaming) its `tool-result` event carrying the outcome the message renders. */
  private report(call: RoundCall, outcome: ToolOutcome, turn: number): Promise<void> | undefined {
    const content = this.runtime.formatOutcome(outcome);
    this.state.messages.push({ role: "tool", toolCallId: call.messageId, name: call.name, content });
    if (!this.events) return undefined;
    // The outcome as the model reads it: shaped and redacted by the pipeline; the exception is never part of it.
    const { exception: _exception, ...seen } = outcome;
    return this.emit({ type: "tool-result", turn, callId: call.callId, tool: call.name, outcome: seen });
  }

  /**
   * Runs one round and books it: outcomes become tool messages in the model's order, a
   * `run_health` block follows a failing round, and poison ends the run `dead_lettered`.
   */
  private async round(
    calls: readonly RoundCall[],
    preset: ReadonlyMap<string, ToolOutcome>,
  ): Promise<AgentRunResult | undefined> {
    const { invoker, runtimeInvoker, options } = this.runtime;
    const { budget } = this.state;
    const turn = this.state.iteration;
    const over = callsOverLimit(calls, budget, options.limits);
    const presets = new Map(preset);
    for (const call of calls)
      if (over.has(call.callId))
        presets.set(call.callId, toolCallLimitOutcome(call, options.limits.maxTotalToolCalls!));
    budget.toolCalls += calls.length - over.size;
    budget.roundsInIteration++;
    const events = this.events;
    const context: RoundContext = {
      invoker,
      runId: this.state.runId,
      signal: this.signal,
      maxConcurrency: options.maxConcurrency,
      compensationInvoker: runtimeInvoker,
    };
    if (this.events) await this.announce(calls, turn);
    const retries =
      events && subscribeToolRetries(this.runtime.retryEvents ?? [], this.state.runId, (e) => events.emitNow(e));
    let settled: Awaited<ReturnType<typeof runRound>>;
    let compensations: Awaited<ReturnType<typeof rollBackFailedScopes>>;
    try {
      settled = await runRound(context, calls, presets);
      compensations = await rollBackFailedScopes(context, settled);
    } finally {
      retries?.dispose();
    }
    const reported: { record: ToolCallRecord; arguments: unknown; outcome: ToolOutcome }[] = [];
    for (const { call, outcome } of settled) {
      const reporting = this.report(call, outcome, turn);
      if (reporting) await reporting;
      reported.push({ record: this.record(call.name, call.callId, outcome, turn), arguments: call.arguments, outcome });
    }
    for (const undo of compensations)
      reported.push({
        record: this.record(undo.tool, undo.callId, undo.outcome, turn, undo.forCallId),
        arguments: undo.arguments,
        outcome: undo.outcome,
      });
    for (const report of reported) await this.hook("onToolCall", { iteration: turn, ...report });
    const { counts, poisoned } = bookRound(this.state.ledger, settled, turn, options.poisonThreshold);
    if (counts.failed + counts.notCalled > 0) {
      const blocking = this.state.ledger.blocking.length > 0;
      this.state.messages.push(runHealthMessage(counts, blocking));
      if (this.events) await this.emit({ type: "run-health", turn, health: runHealthBlock(counts, blocking) });
    }
    if (poisoned.length > 0) {
      await this.deadLetter(poisoned);
      const first = poisoned[0]!;
      return this.result({
        status: "dead_lettered",
        reason: `'${first.tool}' failed ${plural(first.count, "time")} with ${first.errorCode} for the same arguments (poisonThreshold ${options.poisonThreshold}); the run was stopped and written to the dead-letter queue.`,
      });
    }
    const repeated = trackStall(this.state.stall, settled, options.stallThreshold);
    if (repeated) {
      return this.result({
        status: "stalled",
        reason: `The same round repeated ${this.state.stall.count} times in a row with the same outcomes (stallThreshold ${String(options.stallThreshold)}): ${repeated.join("; ")}. The model was making no progress; the run was stopped.`,
      });
    }
    this.budgetNote();
    return undefined;
  }

  /**
   * Answers a turn's calls without running them (the run ends here): each gets a `skipped`
   * outcome with `code`, so the conversation stays well formed and `result.calls` shows them.
   */
  private async refuse(
    calls: readonly RoundCall[],
    code: "TOKEN_BUDGET_EXHAUSTED" | "TOOLS_WITHDRAWN",
    why: string,
    reason: string,
  ): Promise<AgentRunResult> {
    const { options } = this.runtime;
    const turn = this.state.iteration;
    const settled: SettledCall[] = calls.map((call, order) => ({
      call,
      outcome: notRunOutcome(call, code, why),
      order,
    }));
    if (this.events) await this.announce(calls, turn);
    for (const { call, outcome } of settled) {
      const reporting = this.report(call, outcome, turn);
      if (reporting) await reporting;
      const record = this.record(call.name, call.callId, outcome, turn);
      await this.hook("onToolCall", { iteration: turn, record, arguments: call.arguments, outcome });
    }
    bookRound(this.state.ledger, settled, turn, options.poisonThreshold);
    return this.result({
      status: "budget_exhausted",
      reason: `${reason}; ${plural(calls.length, "tool call")} of the last turn ${calls.length === 1 ? "was" : "were"} not run.`,
    });
  }

  /** After a round: tell the model to answer when tools are withdrawn, or to wrap up under token pressure. */
  private budgetNote(): void {
    const { limits } = this.runtime.options;
    const { budget, usage } = this.state;
    const pressure = underTokenPressure(usage, budget, limits);
    if (pressure) budget.pressureNoted = true;
    const withdrawn = toolsWithdrawn(budget, limits);
    if (withdrawn !== undefined) this.state.messages.push(answerNowNote(withdrawn, usage, budget, limits));
    else if (pressure) this.state.messages.push(tokenPressureNote(usage, budget, limits));
  }

  private tokensUsed(): string {
    const max = this.runtime.options.limits.tokenBudget?.maxTokens ?? 0;
    return `The run used ${this.state.usage.totalTokens} tokens of its budget of ${max} (tokenBudget.maxTokens)`;
  }

  private async hook<N extends AgentHookName>(
    name: N,
    info: Omit<Parameters<NonNullable<AgentHooks[N]>>[0], "agent" | "runId">,
  ): Promise<void> {
    const { options } = this.runtime;
    if (options[name] === undefined || this.runtime.replaying?.() === true) return;
    await callHook(options, name, { agent: options.name, runId: this.state.runId, ...info } as Parameters<
      NonNullable<AgentHooks[N]>
    >[0]);
  }

  private iterationEnd(callsBefore: number, outcome: AgentRunResult | undefined): Promise<void> {
    return this.hook("onIterationEnd", {
      iteration: this.state.iteration,
      calls: this.state.calls.slice(callsBefore),
      usage: { ...this.state.usage },
      status: outcome?.status,
    });
  }

  /** Judges a final answer: accept, ask for the run's one correction, or escalate. */
  private conclude(text: string): AgentRunResult | undefined {
    const { options } = this.runtime;
    const { blocking } = this.state.ledger;
    const settledStatus: CompletedRunResult["status"] = blocking.length > 0 ? "completed_with_failures" : "completed";
    let problem: string | undefined;
    let correction: ChatMessage | undefined;
    let output: unknown;
    if (options.finalAnswer) {
      const verdict = checkFinalAnswer(text, options.finalAnswer, blocking);
      if (verdict.ok) output = verdict.output;
      else ({ problem, correction } = verdict);
    } else if (blocking.length > 0 && options.guardrail !== false && (options.guardrail ?? claimsSuccess)(text)) {
      problem = `the final answer claims success while ${plural(blocking.length, "tool call")} had not succeeded (${blocking.map((b) => `${b.tool}: ${b.errorCode}`).join(", ")})`;
      correction = successClaimCorrection(blocking);
    }
    if (problem === undefined)
      return this.result({ status: settledStatus, ...(output === undefined ? {} : { output }) });
    if (!this.state.corrected) {
      this.state.corrected = true;
      this.state.messages.push(correction!);
      this.correction = problem;
      return undefined;
    }
    return this.result({ status: "escalated", reason: `After one correction turn, ${problem}.` });
  }

  private pause(calls: readonly RoundCall[], gated: readonly boolean[]): AgentRunResult {
    const { options, key } = this.runtime;
    const pending: PendingApproval[] = calls.map((c, i) => ({
      callId: c.callId,
      tool: c.name,
      arguments: c.arguments,
      requiresApproval: gated[i] === true,
    }));
    const { runId, ...state } = this.state;
    const checkpoint: AgentCheckpoint = signCheckpoint(
      {
        version: 1,
        id: randomBytes(16).toString("hex"),
        agent: options.name,
        runId,
        createdAt: new Date(options.clock()).toISOString(),
        pending,
        state: state as unknown as Record<string, unknown>,
      },
      key,
    );
    return this.result({
      status: "awaiting_approval",
      checkpoint,
      pendingApprovals: pending.filter((p) => p.requiresApproval),
    });
  }

  private record(
    tool: string,
    callId: string,
    outcome: ToolOutcome,
    round: number,
    compensationFor?: string,
  ): ToolCallRecord {
    const record: ToolCallRecord = {
      tool,
      callId,
      status: outcome.status,
      ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
      attempts: outcome.metadata.attempts,
      latencyMs: outcome.metadata.latencyMs,
      round,
      notCalled: wasNotCalled(outcome),
      ...(compensationFor === undefined ? {} : { compensationFor }),
    };
    this.state.calls.push(record);
    return record;
  }

  private async deadLetter(poisoned: readonly PoisonCount[]): Promise<void> {
    const { options, redact, deadLetters } = this.runtime;
    for (const p of poisoned) {
      await deadLetters.append({
        runId: this.state.runId,
        agent: options.name,
        tool: p.tool,
        arguments: redact(p.arguments),
        errorCode: p.errorCode,
        callIds: [...p.callIds],
        outcomes: p.outcomes.map((o) => redact(o)),
        time: new Date(options.clock()).toISOString(),
        reason: `Failed ${plural(p.count, "time")} with ${p.errorCode} for the same arguments.`,
      });
    }
  }

  /** The run's result: `end` (its status and that status's own fields) plus what every result has. */
  private result(end: RunEnd): AgentRunResult {
    const { options } = this.runtime;
    const { state } = this;
    let text = "";
    for (let i = state.messages.length - 1; i >= 0; i--) {
      const m = state.messages[i]!;
      if (m.role === "assistant" && m.content !== undefined) {
        text = m.content;
        break;
      }
    }
    const health = runHealth(state.ledger);
    const detector = options.guardrail === false || options.guardrail === undefined ? claimsSuccess : options.guardrail;
    const answered = end.status === "completed" || end.status === "completed_with_failures";
    const { recoveries } = state.ledger;
    return {
      ...end,
      runId: state.runId,
      text,
      messages: [...state.messages],
      calls: [...state.calls],
      health,
      silentFailure: answered && health.blocking_failure && options.finalAnswer === undefined && detector(text),
      stepsToRecovery:
        recoveries.length === 0 ? undefined : recoveries.reduce((sum, r) => sum + r.steps, 0) / recoveries.length,
      recoveries: [...recoveries],
      iterations: state.iteration,
      usage: { ...state.usage },
    };
  }
}
