import {
  type ChatClient,
  type ChatResponse,
  type ChatToolCall,
  createToolOutcome,
  type JsonValue,
  type ToolInvoker,
  type ToolOutcome,
  toJsonSafe,
} from "@needlework/core";
import type { AgentRuntime } from "../loop/agent-loop.js";
import { outcomeUnknown } from "./outcome-unknown.js";
import type { JournaledCall, JournaledOutcome, JournaledRun, RunJournal } from "./run-journal.js";

/** A runtime whose model turns and tool calls go through a journal. @internal */
export interface JournaledRuntime extends AgentRuntime {
  /** True while the loop re-walks turns the journal already holds (hooks stay quiet then). */
  readonly replaying: () => boolean;
}

function snapshot(outcome: ToolOutcome, formatted: string, callId: string): JournaledOutcome {
  const { status, retriable, errorCode, message, suggestion, data, metadata } = outcome;
  return {
    callId,
    outcome: {
      status,
      retriable,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message }),
      ...(suggestion === undefined ? {} : { suggestion }),
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
  journal: RunJournal,
  runId: string,
  history?: JournaledRun,
): JournaledRuntime {
  const turns = history?.turns ?? [];
  const calls = new Map<string, JournaledCall>((history?.calls ?? []).map((c) => [c.callId, c]));
  let turnIndex = 0;
  const replaying = (): boolean => turnIndex < turns.length;
  const { chatClient } = runtime.options;

  const journaledChat: ChatClient = {
    ...(chatClient.provider === undefined ? {} : { provider: chatClient.provider }),
    async complete(request) {
      const index = turnIndex++;
      const recorded = turns[index];
      if (recorded !== undefined) {
        const { role: _role, ...message } = recorded.message;
        const response: ChatResponse = { message, ...(recorded.usage ? { usage: recorded.usage } : {}) };
        return recorded.finishReason === undefined ? response : { ...response, finishReason: recorded.finishReason };
      }
      const response = await chatClient.complete(request);
      const toolCalls = withCallIds(response.message.toolCalls, runId, index);
      const message = { ...response.message, ...(toolCalls ? { toolCalls } : {}) };
      await journal.turn(runId, {
        index,
        message: { role: "assistant", ...message },
        ...(response.usage ? { usage: response.usage } : {}),
        ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
      });
      return { ...response, message };
    },
  };

  const journaled = (invoker: ToolInvoker): ToolInvoker => ({
    definitions: invoker.definitions,
    tools: invoker.tools,
    get: (name) => invoker.get(name),
    async invoke(call, options = {}) {
      const callId = call.callId ?? "";
      const idempotencyKey = `${runId}:${callId}`;
      const recorded = calls.get(callId);
      if (recorded?.outcome !== undefined) return rebuild(recorded.outcome);
      if (recorded !== undefined) {
        // The original run went on past this round: the loop itself cancelled the call then.
        if (replaying()) return untilAborted(options.signal);
        if (invoker.get(call.name)?.options.idempotent !== true) {
          const unknown = outcomeUnknown(call.name, callId, idempotencyKey);
          await journal.outcome(runId, snapshot(unknown, runtime.formatOutcome(unknown), callId));
          return unknown;
        }
      } else {
        await journal.callStarted(runId, {
          callId,
          tool: call.name,
          arguments: toJsonSafe(call.arguments ?? {}),
          idempotencyKey,
        });
      }
      const outcome = await invoker.invoke(call, { ...options, runId });
      await journal.outcome(runId, snapshot(outcome, runtime.formatOutcome(outcome), callId));
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
  };
}
