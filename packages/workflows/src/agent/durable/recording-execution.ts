import type { ChatResponse } from "@needlework/core";
import type { DurableExecution } from "@needlework/durable";
import type { RunRecord } from "@needlework/durable/internal";

/**
 * An engine's execution with the run's own record kept beside it: each model turn and each call's
 * start and outcome, as the engine returns them (replayed or live), so a pause's checkpoint carries
 * the run's journal however the run is executed. The engine's own calls are unchanged.
 * @internal
 */
export function recordingExecution(execution: DurableExecution, record: RunRecord): DurableExecution {
  return {
    runId: execution.runId,
    now: () => execution.now(),
    random: () => execution.random(),
    ...(execution.replaying === undefined ? {} : { replaying: () => execution.replaying?.() === true }),
    waitForDecision: (callId, gated, check) => execution.waitForDecision(callId, gated, check),
    async step(name, fn) {
      const value = await execution.step(name, fn);
      if (name.startsWith("turn:")) record.turn(Number(name.slice(5)), value as ChatResponse);
      return value;
    },
    async call(key, fn, call) {
      const { callId, tool, arguments: args, approval } = call;
      if (call.runs && (approval !== undefined || (call.known && !call.readOnly)))
        record.callStarted(callId, {
          tool,
          arguments: args,
          idempotencyKey: key,
          ...(approval === undefined ? {} : { approval }),
        });
      const outcome = await execution.call(key, fn, call);
      record.outcome(callId, outcome, key);
      return outcome;
    },
  };
}
