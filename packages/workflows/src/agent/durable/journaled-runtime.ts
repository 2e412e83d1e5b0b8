import type { ChatClient, ChatResponse, ChatStreamPart, ToolInvoker, ToolOutcome } from "@needlework/core";
import { ChatResponseAssembler } from "@needlework/core/kit";
import {
  type ApprovalRecord,
  type DurableExecution,
  type DurableToolCall,
  type JournaledRun,
  turnStep,
} from "@needlework/durable";
import { finishPart, recordedParts, type RunRecord, withCallIds } from "@needlework/durable/internal";
import { telemetryChatClient } from "@needlework/otel";
import type { AgentRuntime, JournaledRuntime } from "../loop/run-state.js";

export type { JournaledRuntime } from "../loop/run-state.js";

/** A stream the model cut off before its finish part: the step records nothing, and the loop refuses the turn. */
class CutOff extends Error {}

/**
 * Binds the loop to a run's {@link DurableExecution}: each model turn is the step `turn:<index>`
 * (its tool calls named deterministically before the step's value is recorded), each tool call the
 * execution's `call`, keyed by the idempotency key the round assigned. The loop rebuilds a replayed
 * run's state by running its own code: the execution answers what it holds (the loop never asks
 * whether it replays). `record` is the run's own record (what a pause's checkpoint serializes): the
 * built-in journal writes it, and so does the agent for an engine. `streamed`: whether the run reads
 * the model as a stream (a stream sink is attached).
 * @internal
 */
export function journaledRuntime(
  runtime: AgentRuntime,
  execution: DurableExecution,
  record: RunRecord,
  streamed = true,
): JournaledRuntime {
  const { runId } = execution;
  // The verified decision records of the rounds this process runs, kept with each call's start.
  const approvals = new Map<string, ApprovalRecord>();
  // Outcomes the execution recorded: the loop answers the rest (calls it never ran) through it too.
  const recorded = new WeakSet<ToolOutcome>();
  let asked = 0;
  // Model calls reach the telemetry subscriber from here, inside the turn's step: a replayed turn makes none.
  const { telemetry } = runtime;
  const chatClient = telemetry
    ? telemetryChatClient(runtime.options.chatClient, telemetry, runId)
    : runtime.options.chatClient;

  /** Names the turn's calls deterministically, before the step records the turn. */
  const named = (index: number, response: ChatResponse): ChatResponse => {
    const toolCalls = withCallIds(response.message.toolCalls, runId, index);
    return toolCalls === undefined || toolCalls === response.message.toolCalls
      ? response
      : { ...response, message: { ...response.message, toolCalls } };
  };

  const journaledChat: ChatClient = {
    ...(chatClient.provider === undefined ? {} : { provider: chatClient.provider }),
    complete(request) {
      const index = asked++;
      return execution.step(turnStep(index), async () => named(index, await chatClient.complete(request)));
    },
  };
  // A streamed run reads the model through its stream: deltas pass at once; tool calls wait for the
  // finish part, so they reach the loop with the ids the journal recorded. A run that is not streamed
  // never reads a stream, so its client gets none.
  const stream = streamed ? chatClient.stream?.bind(chatClient) : undefined;
  if (stream !== undefined) {
    journaledChat.stream = async function* (request) {
      const index = asked++;
      // One delta at a time: the step's body waits until the loop took it (a slow consumer slows the model read).
      let slot: { readonly part: ChatStreamPart; readonly taken: () => void } | undefined;
      let wake: (() => void) | undefined;
      let done = false;
      let ran = false;
      const stepped = execution
        .step(turnStep(index), async () => {
          ran = true;
          const assembled = new ChatResponseAssembler();
          for await (const part of stream(request)) {
            assembled.add(part);
            if (part.type === "text-delta")
              await new Promise<void>((taken) => {
                slot = { part, taken };
                wake?.();
              });
          }
          if (!assembled.finished) throw new CutOff();
          return named(index, assembled.response());
        })
        .finally(() => {
          done = true;
          wake?.();
        });
      stepped.catch(() => undefined); // read below
      for (;;) {
        if (slot !== undefined) {
          const { part, taken } = slot;
          slot = undefined;
          yield part;
          taken();
        } else if (done) break;
        else await new Promise<void>((woken) => (wake = woken));
      }
      let response: ChatResponse;
      try {
        response = await stepped;
      } catch (error) {
        if (error instanceof CutOff) return; // nothing is recorded, and the loop refuses the turn
        throw error;
      }
      if (!ran) return yield* recordedParts(response);
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
    async invoke(call, options = {}) {
      const callId = call.callId ?? "";
      // The key the loop assigned to the call (see prepareRound), recorded as the tool saw it: read, never made here.
      const { idempotencyKey } = options;
      if (idempotencyKey === undefined)
        throw new TypeError(`The run's call '${callId}' reached the journal without the key its round assigned.`);
      const tool = invoker.get(call.name)?.options;
      const approval = approvals.get(callId);
      const durable: DurableToolCall = {
        callId,
        tool: call.name,
        arguments: call.arguments,
        idempotencyKey,
        idempotent: tool?.idempotent === true,
        readOnly: tool?.readOnly === true,
        known: tool !== undefined,
        runs: true,
        ...(approval === undefined ? {} : { approval }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      };
      const run = options.runId === runId ? options : { ...options, runId };
      const outcome = await execution.call(idempotencyKey, () => invoker.invoke(call, run), durable);
      recorded.add(outcome);
      return outcome;
    },
  });

  const invoker = journaled(runtime.invoker);
  const runtimeInvoker = runtime.runtimeInvoker === runtime.invoker ? invoker : journaled(runtime.runtimeInvoker);
  return {
    ...runtime,
    options: { ...runtime.options, chatClient: journaledChat },
    telemetryClient: runtime.options.chatClient,
    invoker,
    runtimeInvoker,
    execution,
    replaying: () => execution.replaying?.() === true,
    journal: (): JournaledRun => record.serialize(runtime.formatOutcome),
    recordApprovals: (records) => {
      for (const [callId, approval] of records) approvals.set(callId, approval);
    },
    // A call the loop answered without running it (denied, over a budget, refused, skipped): its
    // outcome goes through the execution like any other, unless the execution recorded it already.
    answer: (call, outcome) => {
      if (recorded.has(outcome)) return undefined;
      recorded.add(outcome);
      const { callId, tool, arguments: args, idempotencyKey } = call;
      return execution
        .call(idempotencyKey, () => Promise.resolve(outcome), {
          callId,
          tool,
          arguments: args,
          idempotencyKey,
          idempotent: false,
          readOnly: false,
          known: runtime.runtimeInvoker.get(tool) !== undefined,
          runs: false,
        })
        .then(() => undefined);
    },
  };
}
