import { type ChatClient, type ChatResponse, type ToolInvoker, type ToolOutcome, toJsonSafe } from "@needlework/core";
import { callIdempotencyKey } from "@needlework/core/internal";
import type { AgentRuntime } from "../loop/agent-loop.js";
import type { ApprovalEvidence } from "../loop/run-state.js";
import { ChatResponseAssembler } from "@needlework/core/internal";
import type { ApprovalRecord, JournaledCall, JournaledRun } from "@needlework/durable";
import {
  finishPart,
  isArtifactPageRecord,
  type JournalWriter,
  journaledOutcome,
  journaledTurn,
  outcomeUnknown,
  type RunRecord,
  rebuild,
  recordedParts,
  recordedResponse,
  withCallIds,
} from "@needlework/durable/internal";

/** A runtime whose model turns and tool calls go through a journal. @internal */
export interface JournaledRuntime extends AgentRuntime {
  /** True while the loop re-walks turns the journal already holds: the run's event stream marks their events `replayed` (hooks skip them). */
  readonly replaying: () => boolean;
}

/** Waits for `signal` to abort, then rejects with its reason (a call the loop itself cancelled). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * Wraps a runtime so a run is journaled: each model turn is recorded as it returns, each tool call
 * before its body runs and again when its outcome settles, in the run's own record (`record`, in
 * memory) and, with a `store`, through its `writer`. Given the run's `history`, the wrapped runtime
 * first replays it: recorded turns come back instead of asking the model, recorded outcomes instead
 * of running tools, so the loop rebuilds its state by running its own code (the loop never asks
 * whether it replays). A call that started but never settled runs again only when its tool is
 * `idempotent` (same `idempotencyKey`: runId and callId are the same); otherwise it gets
 * `OUTCOME_UNKNOWN`. `decided`: an approval resume's decision entry, the signed records of the paused
 * round's decided calls (already in the journal: their starts are not written again). `streamed`: whether
 * the run reads the model as a stream (a stream sink is attached).
 * @internal
 */
export function journaledRuntime(
  runtime: AgentRuntime,
  record: RunRecord,
  writer: JournalWriter | undefined,
  runId: string,
  history?: JournaledRun,
  decided?: ReadonlyMap<string, { readonly tool: string; readonly approval: ApprovalRecord }>,
  streamed = true,
): JournaledRuntime {
  const turns = history?.turns ?? [];
  const calls = new Map<string, JournaledCall>();
  for (const c of history?.calls ?? []) calls.set(c.callId, c);
  // The verified decision records of the rounds this process runs, kept with each call's start.
  const approvals = new Map<string, ApprovalRecord>();
  let asked = 0;
  const replaying = (): boolean => asked < turns.length;
  const { chatClient } = runtime.options;

  /** The recorded answer of the next turn, when the journal has it. */
  const replayed = (): { index: number; response: ChatResponse | undefined } => {
    const recorded = turns[asked];
    const index = asked++;
    return { index, response: recorded === undefined ? undefined : recordedResponse(recorded) };
  };
  /** Names the turn's calls deterministically and records the turn before the loop sees it. */
  const recordTurn = async (index: number, response: ChatResponse): Promise<ChatResponse> => {
    const toolCalls = withCallIds(response.message.toolCalls, runId, index);
    const named: ChatResponse =
      toolCalls === undefined || toolCalls === response.message.toolCalls
        ? response
        : { ...response, message: { ...response.message, toolCalls } };
    record.turn(index, named);
    if (writer !== undefined) await writer.turn(journaledTurn(index, named));
    return named;
  };
  const settled = new Set<string>();
  /** An outcome settled: kept in the run's record (by reference) and written to the store. */
  const settle = (callId: string, outcome: ToolOutcome): void => {
    settled.add(callId);
    record.outcome(callId, outcome);
    writer?.outcome(journaledOutcome(outcome, runtime.formatOutcome(outcome), callId));
  };

  const journaledChat: ChatClient = {
    ...(chatClient.provider === undefined ? {} : { provider: chatClient.provider }),
    async complete(request) {
      const { index, response } = replayed();
      return response ?? recordTurn(index, await chatClient.complete(request));
    },
  };
  // A streamed run reads the model through its stream: deltas pass at once; tool calls wait for the
  // finish part, so they reach the loop with the ids the journal recorded. A run that is not streamed
  // never reads a stream, so its client gets none (a generator made for every run measured about
  // 180 µs more per 100-call run, in garbage collection).
  const stream = streamed ? chatClient.stream?.bind(chatClient) : undefined;
  if (stream !== undefined) {
    journaledChat.stream = async function* (request) {
      const { index, response: recorded } = replayed();
      if (recorded !== undefined) return yield* recordedParts(recorded);
      const assembled = new ChatResponseAssembler();
      for await (const part of stream(request)) {
        assembled.add(part);
        if (part.type === "text-delta") yield part;
      }
      if (!assembled.finished) return; // cut off: nothing is recorded, and the loop refuses the turn
      const response = await recordTurn(index, assembled.response());
      for (const toolCall of response.message.toolCalls ?? []) yield { type: "tool-call", toolCall };
      yield finishPart(response);
    };
  }

  const journaled = (invoker: ToolInvoker): ToolInvoker => ({
    // Read through, never copied: an invoker may compute them when asked (the pipeline's full list).
    get definitions() {
      return invoker.definitions;
    },
    get tools() {
      return invoker.tools;
    },
    get: (name) => invoker.get(name),
    invoke(call, options = {}) {
      const callId = call.callId ?? "";
      // A live call of a run without a store that nothing recorded or approved: nothing to write
      // before its body runs, and its outcome reaches the record when the loop books it
      // (`recordOutcome`), so the call goes straight to the invoker.
      if (writer === undefined && !calls.has(callId) && !approvals.has(callId))
        return invoker.invoke(call, options.runId === runId ? options : { ...options, runId });
      return recordedInvoke(invoker, call, options);
    },
  });

  const recordedInvoke = async (
    invoker: ToolInvoker,
    call: Parameters<ToolInvoker["invoke"]>[0],
    options: NonNullable<Parameters<ToolInvoker["invoke"]>[1]>,
  ): Promise<ToolOutcome> => {
    const callId = call.callId ?? "";
    const recorded = calls.get(callId);
    if (recorded?.outcome !== undefined && isArtifactPageRecord(recorded.outcome)) {
      // A page of an artifact is journaled as a reference: read it again (the call is read-only),
      // with the metadata the model read the first time.
      const page = await invoker.invoke(call, options.runId === runId ? options : { ...options, runId });
      Object.assign(page.metadata, structuredClone(recorded.outcome.outcome.metadata));
      return page;
    }
    if (recorded?.outcome !== undefined) return rebuild(recorded.outcome);
    // The key the loop assigned to the call (see prepareRound), recorded as the tool saw it.
    const idempotencyKey = options.idempotencyKey ?? callIdempotencyKey(runId, callId);
    const approval = approvals.get(callId);
    if (recorded !== undefined) {
      // The original run went on past this round: the loop itself cancelled the call then.
      if (replaying()) return untilAborted(options.signal);
      if (invoker.get(call.name)?.options.idempotent !== true) {
        const unknown = outcomeUnknown(call.name, callId, idempotencyKey);
        settle(callId, unknown);
        return unknown;
      }
      // Runs again: its start is written again first, so the write is fenced by the lease before
      // the body runs (two processes that both took a free lease: the one not on it stops here).
      const { outcome: _none, approval: recordedApproval, ...start } = recorded;
      const kept = approval ?? recordedApproval;
      record.callStarted(callId, { ...start, ...(kept === undefined ? {} : { approval: kept }) });
      await writer?.callStarted(kept === undefined ? start : { ...start, approval: kept });
    } else if (approval !== undefined) {
      record.callStarted(callId, { tool: call.name, arguments: call.arguments, idempotencyKey, approval });
      // The decision entry of a resume wrote this start already (fenced, before the loop ran).
      if (writer !== undefined && decided?.has(callId) !== true)
        await writer.callStarted({
          callId,
          tool: call.name,
          arguments: toJsonSafe(call.arguments ?? {}),
          idempotencyKey,
          approval,
        });
    } else if (
      writer !== undefined &&
      invoker.get(call.name) !== undefined &&
      invoker.get(call.name)?.options.readOnly !== true
    ) {
      // Durable before the body runs: a write whose start is lost could run twice. A read-only
      // tool has no start record (running it again is harmless), only its outcome, unless it was
      // approved: its decision record is kept with its start. Nor has a tool the agent does not
      // know (no body runs): the name the model made up is kept only in its outcome, which a
      // store's codec seals.
      await writer.callStarted({
        callId,
        tool: call.name,
        arguments: toJsonSafe(call.arguments ?? {}),
        idempotencyKey,
      });
    }
    const outcome = await invoker.invoke(call, options.runId === runId ? options : { ...options, runId });
    settle(callId, outcome);
    return outcome;
  };

  // A new run without a store has nothing to replay and nothing to write before a body runs: its
  // calls go to the plain invoker (a wrapper and a promise per call, with the stream generator above,
  // made a 10-call run 80 µs against 55), and the loop hands their outcomes to `recordOutcome` as it
  // books them.
  const fresh = writer === undefined && history === undefined && decided === undefined;
  const invoker = fresh ? runtime.invoker : journaled(runtime.invoker);
  const runtimeInvoker = fresh
    ? runtime.runtimeInvoker
    : runtime.runtimeInvoker === runtime.invoker
      ? invoker
      : journaled(runtime.runtimeInvoker);
  return {
    ...runtime,
    options: { ...runtime.options, chatClient: journaledChat },
    invoker,
    runtimeInvoker,
    replaying,
    journal: () => record.serialize(runtime.formatOutcome),
    // What the journal holds for a round's calls. The loop verifies a record with the key against
    // the call as replayed; a call start without one (or with a forged one) proves nothing.
    recordedDecisions: (round) => {
      const evidence = new Map<string, ApprovalEvidence>();
      if (calls.size === 0 && decided === undefined) return evidence; // a new run: nothing recorded
      for (const call of round) {
        const recorded = calls.get(call.callId);
        const approval = decided?.get(call.callId)?.approval ?? recorded?.approval;
        if (recorded?.outcome !== undefined) evidence.set(call.callId, "settled");
        else if (approval !== undefined) evidence.set(call.callId, approval);
      }
      return evidence;
    },
    recordApprovals: (records) => {
      for (const [callId, approval] of records) approvals.set(callId, approval);
    },
    // Outcomes the loop gave without running the call, and those it booked: recorded like any other,
    // unless the journal holds one already (a replayed round gives the same again) or it was recorded
    // as it settled.
    recordOutcome: (callId, outcome) => {
      if (!settled.has(callId) && calls.get(callId)?.outcome === undefined) settle(callId, outcome);
    },
  };
}
