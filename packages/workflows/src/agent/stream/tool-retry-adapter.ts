import type { ResilienceEvents, Subscription } from "../../resilience/resilience-events.js";
import type { ToolRetryEvent } from "./agent-event.js";

/**
 * Subscribes a streamed run to resilience's typed `onRetry` events and turns those of its own calls
 * (same `runId`) into `tool-retry` events. The event carries a stable code and a class name, never
 * an exception's message. Dispose the returned subscription when the round ends.
 * @internal
 */
export function subscribeToolRetries(
  sources: readonly ResilienceEvents[],
  runId: string,
  emit: (event: ToolRetryEvent) => void,
): Subscription {
  const subscriptions = sources.map((events) =>
    events.onRetry((e) => {
      if (e.runId !== runId) return;
      emit({
        type: "tool-retry",
        callId: e.callId,
        tool: e.tool,
        attempt: e.attempt,
        delayMs: e.delayMs,
        ...(e.errorCode === undefined ? {} : { errorCode: e.errorCode }),
      });
    }),
  );
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
