import {
  abortReason,
  type ChatAssistantMessage,
  type ChatUsage,
  isUntrustedOutcome,
  type ToolOutcome,
} from "@needlework/core";
import type { AgentRunResult, ToolCallRecord } from "@needlework/core/events";
import { callsNeedingApproval, enforceGate, proven, refuseUnaskable } from "../approvals/gate.js";
import { pauseForApproval } from "../approvals/pause.js";
import { callsNotRun, notRunOutcome, tokensSpent, toolsWithdrawn } from "../policies/budgets.js";
import { rollBackFailedScopes } from "../policies/compensation.js";
import { resetStall } from "../policies/stall.js";
import type { RunEvent, RunEvents } from "../events/run-events.js";
import { openRunEvents } from "../events/subscribers.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import { plural } from "../../text/plural.js";
import { markEnclosingCall, raceAbort } from "@needlework/core/internal";
import { askModel } from "@needlework/core/kit";
import { refusals, reviewRound } from "./call-gate.js";
import { prepareRound, type RoundCall } from "./round-call.js";
import { concludeRound, judgeAnswer, recordCall, runResult, stopBeforeTurn, tokensUsed } from "./run-end.js";
import { bookRound } from "./run-ledger.js";
import { type RoundContext, runRound, type SettledCall } from "./run-round.js";
import { roundStep } from "@needlework/durable";
import { callIdentities, type JournaledRuntime, type RoundGate, type RunEnd, type RunState } from "./run-state.js";
import { decisionsOf, roundStart } from "./round-journal.js";
import { cancelOf, endedWhenCancelled } from "./run-cancel.js";

export { type AgentRuntime, callIdentities, type JournaledRuntime, type RunState } from "./run-state.js";

/** What a model turn leads to: the run's end, or (undefined) the next turn; and what the turn cost. */
interface TurnResult {
  readonly end: RunEnd | undefined;
  readonly usage?: ChatUsage;
}

/**
 * One run of the loop: `turn` asks the model, `round` runs the calls it asked for and books them,
 * `judgeAnswer` (run-end.ts) decides on a final answer. Each step returns what comes next (the run's
 * end or nothing); the stop conditions and the ends are small functions of the state in run-end.ts.
 * Budgets and limits end a run with a result (`budget_exhausted`), never an abort: they act only
 * between steps, so nothing in flight is cut off.
 *
 * `run()` and `stream()` share it: each step emits its events into the run's one event stream
 * (`RunEvents`), which the hooks, a stream's sink and the plugins' observers subscribe to; each emit
 * is awaited, so a slow consumer slows the run and a failing hook fails it. The loop knows no
 * subscriber, and with none nothing is copied. Streamed, the model is read through
 * `chatClient.stream()` when it has one.
 * @internal
 */
export class AgentRun {
  private readonly events: RunEvents;
  /** Streamed text deltas: only when someone hears them is the model read as a stream. */
  private readonly streamed: boolean;

  constructor(
    private readonly runtime: JournaledRuntime,
    private readonly state: RunState,
    private readonly signal: AbortSignal | undefined,
    sink?: RunEventSink,
  ) {
    this.events = openRunEvents(runtime, state.runId, sink);
    this.streamed = sink !== undefined;
  }

  /** Loops until a final answer, a pause or a limit. */
  loop(): Promise<AgentRunResult> {
    return this.finish(() => endedWhenCancelled(this.signal, () => this.turns())).catch((error: unknown) =>
      this.events.fail(error),
    );
  }

  /** The run's result from its end; `run-start` first, `approval-required` for a pause, `run-end` last. */
  private async finish(body: () => Promise<RunEnd>): Promise<AgentRunResult> {
    const { options } = this.runtime;
    const started = this.emit({ type: "run-start", runId: this.state.runId, agent: options.name });
    if (started) await started;
    const result = runResult(options, this.state, await body());
    const paused =
      result.status === "awaiting_approval" &&
      this.emit({ type: "approval-required", checkpoint: result.checkpoint, pending: result.pendingApprovals });
    if (paused) await paused;
    const ended = this.emit({ type: "run-end", result });
    if (ended) await ended;
    return result;
  }

  /**
   * Hands an event to the run's subscribers; a promise while one of them is busy with it. Callers
   * await only that promise: a run nobody observes takes not one await more than it did.
   */
  private emit(event: RunEvent): Promise<void> | undefined {
    return this.events.emit(event);
  }

  private async turns(): Promise<RunEnd> {
    const { options } = this.runtime;
    for (;;) {
      if (this.signal?.aborted) throw abortReason(this.signal);
      const stop = stopBeforeTurn(options, this.state);
      if (stop !== undefined) return stop;
      await this.emit({ type: "iteration-start", iteration: this.state.iteration + 1, run: this.moment() });
      const callsBefore = this.state.calls.length;
      const { end, usage } = await this.turn();
      await this.iterationEnd(callsBefore, end);
      const emitted = this.emit({ type: "turn-end", turn: this.state.iteration, ...(usage ? { usage } : {}) });
      if (emitted) await emitted;
      if (end !== undefined) return end;
    }
  }

  /** One model turn and whatever it asks for. */
  private async turn(): Promise<TurnResult> {
    const { options, invoker } = this.runtime;
    const { state } = this;
    const turn = ++state.iteration;
    const emitted = this.emit({ type: "turn-start", turn });
    if (emitted) await emitted;
    // Once a tool limit is reached the model is offered no tools and asked (by a budget note) to answer.
    const withdrawn = toolsWithdrawn(state.budget, options.limits);
    const tools = withdrawn === undefined ? invoker.definitions : [];
    const request = { messages: [...state.messages], tools, ...(this.signal ? { signal: this.signal } : {}) };
    const onDelta = this.streamed ? (delta: string) => this.emit({ type: "text-delta", turn, delta }) : undefined;
    const response = await askModel(options.chatClient, request, this.signal, onDelta);
    const { usage } = response;
    if (usage) {
      state.usage.inputTokens += usage.inputTokens;
      state.usage.outputTokens += usage.outputTokens;
      state.usage.totalTokens += usage.totalTokens;
    }
    const { content, toolCalls = [] } = response.message;
    const calls =
      toolCalls.length > 0 ? prepareRound(toolCalls, invoker, options.roundPolicy, callIdentities(state)) : [];
    const message: ChatAssistantMessage = {
      role: "assistant",
      ...(content === undefined ? {} : { content }),
      ...(calls.length === 0
        ? {}
        : { toolCalls: calls.map((c) => ({ id: c.messageId, name: c.name, arguments: c.arguments })) }),
    };
    state.messages.push(message);
    return { end: await this.afterTurn(calls, content ?? "", withdrawn), ...(usage ? { usage } : {}) };
  }

  /** What the model's turn asks for: judge a final answer, refuse calls the budget forbids, pause or run the round. */
  private async afterTurn(calls: readonly RoundCall[], text: string, withdrawn: string | undefined) {
    const { options } = this.runtime;
    const { state } = this;
    if (calls.length === 0) {
      // A text answer ends the iteration: tool rounds and stall series start again after it.
      state.budget.roundsInIteration = 0;
      resetStall(state.stall);
      const verdict = judgeAnswer(options, state, text);
      if ("end" in verdict) return verdict.end;
      state.corrected = true;
      state.messages.push(verdict.correction);
      const emitted = this.emit({ type: "correction", turn: state.iteration, reason: verdict.problem });
      if (emitted) await emitted;
      return undefined;
    }
    if (withdrawn !== undefined) {
      const why = `tools were withdrawn because ${withdrawn}`;
      return this.refuse(
        calls,
        "TOOLS_WITHDRAWN",
        why,
        `The model called tools after they were withdrawn because ${withdrawn}`,
      );
    }
    if (tokensSpent(state.usage, options.limits))
      return this.refuse(
        calls,
        "TOKEN_BUDGET_EXHAUSTED",
        "the run's token budget is spent",
        tokensUsed(options, state),
      );
    // Calls beyond the turn's or the run's limit never run, so they are never put to a reviewer either.
    const over = callsNotRun(calls, this.state.budget, options);
    const admitted = calls.filter((c) => !over.has(c.callId));
    const gatedAdmitted = await raceAbort(callsNeedingApproval(admitted, options.approvalPolicy), this.signal);
    // The plugins' gates (the injection policy) read the run's content as it stands before the round:
    // a call they refuse is answered so; one they put to a person is gated like requiresApproval.
    const verdicts = await raceAbort(reviewRound(this.runtime.callGates, state, admitted), this.signal);
    // Arguments are checked before anyone is asked: invalid or too long to show, a call is answered
    // so and never put to a reviewer (nor run).
    const refused = refusals(verdicts);
    const gated = refuseUnaskable(
      calls,
      calls.map((c) => gatedAdmitted[admitted.indexOf(c)] === true || verdicts.get(c.callId)?.action === "approve"),
      refused,
    );
    // What the run's record holds of decisions on these calls (a denied one never runs, gated or not).
    const evidence = await decisionsOf(this.runtime.execution, calls, gated, this.runtime.key, state.runId);
    const gate = { gated, evidence };
    if (!gated.some(Boolean)) return this.round(calls, refused, gate);
    // A gated round runs only when the run's record proves every gated call's decision (a signed
    // record, or a recorded outcome); otherwise the run pauses and a person is asked.
    if (!proven(this.runtime.key, state.runId, calls, gate))
      return pauseForApproval(this.runtime, state, calls, gated, verdicts);
    return this.round(calls, refused, gate);
  }

  /**
   * Books a round's settled calls in the model's order: a tool message each (and, streaming, a
   * `tool-call` before and a `tool-result` event carrying the outcome as the model reads it,
   * shaped and redacted, never the exception), its record, and the `onToolCall` hook.
   */
  private async book(settled: readonly SettledCall[], compensations: Awaited<ReturnType<typeof rollBackFailedScopes>>) {
    const turn = this.state.iteration;
    const reported: { record: ToolCallRecord; arguments: unknown; outcome: ToolOutcome }[] = [];
    for (const { call, outcome } of settled) {
      const content = this.runtime.formatOutcome(outcome);
      this.state.messages.push({ role: "tool", toolCallId: call.messageId, name: call.name, content });
      // Third-party text entered the context: recorded with the message, so replay and checkpoints keep it.
      // A sub-agent's reading reaches the trusted tool that runs it: its outcome is marked too.
      if (isUntrustedOutcome(outcome)) {
        (this.state.untrusted ??= []).push(call.messageId);
        markEnclosingCall();
      }
      const { exception: _exception, ...seen } = outcome;
      const emitted = this.emit({ type: "tool-result", turn, callId: call.callId, tool: call.name, outcome: seen });
      if (emitted) await emitted;
      const record = recordCall(this.state, { tool: call.name, callId: call.callId, outcome, round: turn });
      const answered = this.runtime.answer({ ...call, tool: call.name }, outcome);
      if (answered) await answered;
      reported.push({ record, arguments: call.arguments, outcome });
    }
    for (const undo of compensations) {
      const { tool, callId, outcome, forCallId: compensationFor } = undo;
      const answered = this.runtime.answer(undo, outcome);
      if (answered) await answered;
      reported.push({
        record: recordCall(this.state, { tool, callId, outcome, round: turn, compensationFor }),
        arguments: undo.arguments,
        outcome,
      });
    }
    for (const report of reported) await this.emit({ type: "call-booked", iteration: turn, ...report });
  }

  /** `tool-call` for each call of a round, in the model's order, before any of them runs. */
  private announce(calls: readonly RoundCall[], from = 0): Promise<void> | undefined {
    const turn = this.state.iteration;
    for (let i = from; i < calls.length; i++) {
      const { callId, name, arguments: args } = calls[i]!;
      const emitted = this.emit({ type: "tool-call", turn, callId, tool: name, arguments: args });
      if (emitted) return emitted.then(() => this.announce(calls, i + 1));
    }
    return undefined;
  }

  /**
   * Runs one round and books it: outcomes become tool messages in the model's order, a
   * `run_health` block follows a failing round, and poison ends the run `dead_lettered`.
   */
  private async round(
    calls: readonly RoundCall[],
    preset: ReadonlyMap<string, ToolOutcome>,
    gate: RoundGate,
  ): Promise<RunEnd | undefined> {
    const { invoker, runtimeInvoker, options } = this.runtime;
    const { state } = this;
    const turn = state.iteration;
    const over = callsNotRun(calls, this.state.budget, options);
    const presets = new Map([...preset, ...over]);
    // The one gate every way of running a round passes: a gated call runs only with a decision
    // record that verifies as approved for this run, call, tool and arguments.
    const approved = enforceGate(this.runtime.key, state.runId, calls, gate, presets);
    if (approved.size > 0) this.runtime.recordApprovals(approved);
    for (const call of calls) {
      const preset = presets.get(call.callId);
      const answered = preset && this.runtime.answer({ ...call, tool: call.name }, preset);
      if (answered) await answered;
    }
    state.budget.toolCalls += calls.length - over.size;
    state.budget.roundsInIteration++;
    const context: RoundContext = {
      invoker,
      runId: state.runId,
      signal: this.signal,
      maxConcurrency: options.maxConcurrency,
      compensationInvoker: runtimeInvoker,
      // Retries reach the run through each call's context (its `report`), not a shared emitter.
      report: this.events.report,
    };
    const announced = this.announce(calls);
    if (announced) await announced;
    await this.runtime.execution.step(roundStep(turn), () => roundStart(calls));
    const settled = await runRound(context, calls, presets);
    // A cancelled run undoes nothing: it stops (its calls answered, never followed by more calls).
    const compensations = cancelOf(this.signal) ? [] : await rollBackFailedScopes(context, settled);
    await this.book(settled, compensations);
    const { end, health } = await concludeRound(this.runtime, state, settled);
    const reported = health && this.emit({ type: "run-health", turn, health });
    if (reported) await reported;
    return end;
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
  ): Promise<RunEnd> {
    const settled: SettledCall[] = calls.map((call, order) => ({
      call,
      outcome: notRunOutcome(call, code, why),
      order,
    }));
    const announced = this.announce(calls);
    if (announced) await announced;
    await this.book(settled, []);
    bookRound(this.state.ledger, settled, this.state.iteration, this.runtime.options.poisonThreshold);
    const count = `${plural(calls.length, "tool call")} of the last turn ${calls.length === 1 ? "was" : "were"} not run`;
    return { status: "budget_exhausted", reason: `${reason}; ${count}.` };
  }

  /** The run as it stands, for the hooks' moments (a subscriber copies what it keeps). */
  private moment() {
    const { messages, usage, budget } = this.state;
    return { messages, usage, toolCalls: budget.toolCalls };
  }

  private iterationEnd(callsBefore: number, end: RunEnd | undefined): Promise<void> | undefined {
    const { iteration, calls } = this.state;
    const booked = calls.slice(callsBefore);
    return this.emit({ type: "iteration-end", iteration, calls: booked, status: end?.status, run: this.moment() });
  }
}
