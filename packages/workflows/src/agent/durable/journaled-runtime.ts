import {
  type ChatClient,
  type ChatResponse,
  type ChatStreamPart,
  type ChatToolCall,
  createToolOutcome,
  type JsonValue,
  type ToolInvoker,
  type ToolOutcome,
  toJsonSafe,
} from "@needlework/core";
import { callIdempotencyKey } from "@needlework/core/internal";
import type { ApprovalRecord } from "../approvals/decision-record.js";
import type { AgentRuntime } from "../loop/agent-loop.js";
import type { ApprovalEvidence } from "../loop/run-state.js";
import { ChatResponseAssembler } from "../stream/collect-chat-stream.js";
import { outcomeUnknown } from "./outcome-unknown.js";
import type { JournalWriter } from "./journal-writer.js";
import type { JournaledCall, JournaledOutcome, JournaledRun, JournaledTurn } from "@needlework/durable";

/** A runtime whose model turns and tool calls go through a journal. @internal */
export interface JournaledRuntime extends AgentRuntime {
  /** True while the loop re-walks turns the journal already holds: the run's event stream marks their events `replayed` (hooks skip them). */
  readonly replaying: () => boolean;
}

/**
 * `replay`: walk the recorded turns again, then go on live (`resumeRun`). `continue`: the run's
 * state comes from elsewhere (an approval checkpoint); new turns are recorded after the recorded ones.
 * @internal
 */
export type JournalMode = "replay" | "continue";

/** An outcome as the journal keeps it: JSON-safe, with the text the model read. @internal */
export function journaledOutcome(outcome: ToolOutcome, formatted: string, callId: string): JournaledOutcome {
  const { status, retriable, errorCode, message, suggestion, failures, data, metadata } = outcome;
  return {
    callId,
    outcome: {
      status,
      retriable,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message }),
      ...(suggestion === undefined ? {} : { suggestion }),
      ...(failures === undefined ? {} : { failures }),
      ...(data === undefined ? {} : { data: toJsonSafe(data) }),
      metadata: toJsonSafe(metadata) as { [key: string]: JsonValue },
    },
    formatted,
  };
}

function rebuild(recorded: JournaledOutcome): ToolOutcome {
  const { metadata, ...rest } = recorded.outcome;
  return createToolOutcome({ ...rest, metadata: structuredClone(metadata) });
}

/** Tool call ids the loop would otherwise generate at random: deterministic, so a replay finds them. */
function withCallIds(
  toolCalls: readonly ChatToolCall[] | undefined,
  runId: string,
  turn: number,
): ChatToolCall[] | undefined {
  if (toolCalls === undefined) return undefined;
  const seen = new Set<string>();
  return toolCalls.map((call, i) => {
    let id = typeof call.id === "string" && call.id !== "" && !seen.has(call.id) ? call.id : `${runId}_t${turn}_c${i}`;
    while (seen.has(id)) id = `${id}_`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** A recorded response as the parts of a stream. */
function* partsOf(response: ChatResponse): Generator<ChatStreamPart> {
  const { content, toolCalls = [] } = response.message;
  if (content !== undefined && content !== "") yield { type: "text-delta", delta: content };
  for (const toolCall of toolCalls) yield { type: "tool-call", toolCall };
  yield finishOf(response);
}

function finishOf(response: ChatResponse): ChatStreamPart {
  return {
    type: "finish",
    ...(response.usage ? { usage: response.usage } : {}),
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
  };
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
 * before its body runs and again when its outcome settles. Given the run's `history`, the wrapped
 * runtime first replays it: recorded turns come back instead of asking the model, recorded
 * outcomes instead of running tools, so the loop rebuilds its state by running its own code. A
 * call that started but never settled runs again only when its tool is `idempotent` (same
 * `idempotencyKey`: runId and callId are the same); otherwise it gets `OUTCOME_UNKNOWN`.
 * @internal
 */
export function journaledRuntime(
  runtime: AgentRuntime,
  writer: JournalWriter,
  runId: string,
  history?: JournaledRun,
  mode: JournalMode = "replay",
): JournaledRuntime {
  const turns = mode === "replay" ? (history?.turns ?? []) : [];
  const calls = new Map<string, JournaledCall>((history?.calls ?? []).map((c) => [c.callId, c]));
  // Turn records are numbered in the run: a continued run goes on after the recorded ones.
  const firstIndex = mode === "replay" ? 0 : (history?.turns ?? []).reduce((n, t) => Math.max(n, t.index + 1), 0);
  // The verified decision records of the rounds this process runs, kept with each call's start.
  const approvals = new Map<string, ApprovalRecord>();
  let asked = 0;
  const replaying = (): boolean => asked < turns.length;
  const { chatClient } = runtime.options;

  /** The recorded answer of the next turn, when the journal has it. */
  const replayed = (): { index: number; response: ChatResponse | undefined } => {
    const recorded = turns[asked];
    const index = firstIndex + asked++;
    if (recorded === undefined) return { index, response: undefined };
    const { role: _role, ...message } = recorded.message;
    const response: ChatResponse = { message, ...(recorded.usage ? { usage: recorded.usage } : {}) };
    return {
      index,
      response: recorded.finishReason === undefined ? response : { ...response, finishReason: recorded.finishReason },
    };
  };
  /** Names the turn's calls deterministically and records the turn before the loop sees it. */
  const record = async (index: number, response: ChatResponse): Promise<ChatResponse> => {
    const toolCalls = withCallIds(response.message.toolCalls, runId, index);
    const message = { ...response.message, ...(toolCalls ? { toolCalls } : {}) };
    await writer.turn({
      index,
      // The JSON-safe snapshot: arguments nested past its depth are stored as its marker.
      message: toJsonSafe({ role: "assistant", ...message }) as unknown as JournaledTurn["message"],
      ...(response.usage ? { usage: response.usage } : {}),
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
    });
    return { ...response, message };
  };

  const journaledChat: ChatClient = {
    ...(chatClient.provider === undefined ? {} : { provider: chatClient.provider }),
    async complete(request) {
      const { index, response } = replayed();
      return response ?? record(index, await chatClient.complete(request));
    },
  };
  // A streamed run reads the model through its stream: deltas pass at once; tool calls wait for the
  // finish part, so they reach the loop with the ids the journal recorded.
  const stream = chatClient.stream?.bind(chatClient);
  if (stream !== undefined) {
    journaledChat.stream = async function* (request) {
      const { index, response: recorded } = replayed();
      if (recorded !== undefined) return yield* partsOf(recorded);
      const assembled = new ChatResponseAssembler();
      for await (const part of stream(request)) {
        assembled.add(part);
        if (part.type === "text-delta") yield part;
      }
      if (!assembled.finished) return; // cut off: nothing is recorded, and the loop refuses the turn
      const response = await record(index, assembled.response());
      for (const toolCall of response.message.toolCalls ?? []) yield { type: "tool-call", toolCall };
      yield finishOf(response);
    };
  }

  const journaled = (invoker: ToolInvoker): ToolInvoker => ({
    definitions: invoker.definitions,
    tools: invoker.tools,
    get: (name) => invoker.get(name),
    async invoke(call, options = {}) {
      const callId = call.callId ?? "";
      // The key the loop assigned to the call (see prepareRound), recorded as the tool saw it.
      const idempotencyKey = options.idempotencyKey ?? callIdempotencyKey(runId, callId);
      const recorded = calls.get(callId);
      if (recorded?.outcome !== undefined) return rebuild(recorded.outcome);
      if (recorded !== undefined) {
        // The original run went on past this round: the loop itself cancelled the call then.
        if (replaying()) return untilAborted(options.signal);
        if (invoker.get(call.name)?.options.idempotent !== true) {
          const unknown = outcomeUnknown(call.name, callId, idempotencyKey);
          writer.outcome(journaledOutcome(unknown, runtime.formatOutcome(unknown), callId));
          return unknown;
        }
        // Runs again: its start is written again first, so the write is fenced by the lease before
        // the body runs (two processes that both took a free lease: the one not on it stops here).
        const { outcome: _none, approval: recordedApproval, ...start } = recorded;
        const approval = approvals.get(callId) ?? recordedApproval;
        await writer.callStarted(approval === undefined ? start : { ...start, approval });
      } else if (
        (invoker.get(call.name) !== undefined && invoker.get(call.name)?.options.readOnly !== true) ||
        approvals.has(callId)
      ) {
        // Durable before the body runs: a write whose start is lost could run twice. A read-only
        // tool has no start record (running it again is harmless), only its outcome, unless it was
        // approved: its decision record is kept with its start. Nor has a tool the agent does not
        // know (no body runs): the name the model made up is kept only in its outcome, which a
        // store's codec seals.
        const approval = approvals.get(callId);
        await writer.callStarted({
          callId,
          tool: call.name,
          arguments: toJsonSafe(call.arguments ?? {}),
          idempotencyKey,
          ...(approval === undefined ? {} : { approval }),
        });
      }
      const outcome = await invoker.invoke(call, { ...options, runId });
      writer.outcome(journaledOutcome(outcome, runtime.formatOutcome(outcome), callId));
      return outcome;
    },
  });

  const invoker = journaled(runtime.invoker);
  return {
    ...runtime,
    options: { ...runtime.options, chatClient: journaledChat },
    invoker,
    runtimeInvoker: runtime.runtimeInvoker === runtime.invoker ? invoker : journaled(runtime.runtimeInvoker),
    replaying,
    // What the journal holds for a round's calls. The loop verifies a record with the key against
    // the call as replayed; a call start without one (or with a forged one) proves nothing.
    recordedDecisions: (round) => {
      const evidence = new Map<string, ApprovalEvidence>();
      for (const call of round) {
        const recorded = calls.get(call.callId);
        if (recorded?.outcome !== undefined) evidence.set(call.callId, "settled");
        else if (recorded?.approval !== undefined) evidence.set(call.callId, recorded.approval);
      }
      return evidence;
    },
    recordApprovals: (records) => {
      for (const [callId, record] of records) approvals.set(callId, record);
    },
  };
}
