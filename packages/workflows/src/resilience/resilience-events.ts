import type { ToolRetryReport } from "@needlework/core";
import { EventEmitter } from "cockatiel";

/**
 * A retry resilience scheduled, as the plugin-wide `onRetry` tells it: a {@link ToolRetryReport}
 * without its `type`.
 *
 * @example
 * ```ts
 * const event: RetryEvent = { callId: "call_1", runId: "run_1", tool: "getOrderStatus", attempt: 1, delayMs: 200 };
 * ```
 *
 * @deprecated Retries reach their own run, not a plugin-wide emitter: read the run's `tool-retry`
 * events (`agent.stream()`, or a plugin's `observeRun`), or `ToolRetryReport` through
 * `ToolCallContext.report` in a middleware outside resilience. (`events.onRetry` still tells it.)
 */
export type RetryEvent = Omit<ToolRetryReport, "type">;

/**
 * Told when resilience stops retrying a call that failed: attempts ran out, the failure is not
 * retriable, or the next wait would outlast the total timeout.
 *
 * @example
 * ```ts
 * plugin.events.onGiveUp((e: ToolGiveUpEvent) => console.warn(`${e.tool} failed after ${e.attempts} attempts`));
 * ```
 */
export interface ToolGiveUpEvent {
  readonly callId: string;
  readonly runId: string;
  readonly tool: string;
  /** Attempts made, the last one included. */
  readonly attempts: number;
  readonly errorCode?: string;
}

/**
 * A tool's circuit breaker changed state (`onBreak`: opened, `onHalfOpen`: lets a trial call
 * through, `onReset`: closed again).
 *
 * @example
 * ```ts
 * plugin.events.onBreak(({ tool }: ToolCircuitEvent) => alert(`${tool} circuit open`));
 * ```
 */
export interface ToolCircuitEvent {
  readonly tool: string;
}

/**
 * A call was turned away because its tool's bulkhead (and queue) was full.
 *
 * @example
 * ```ts
 * plugin.events.onBulkheadReject(({ tool, callId }: ToolBulkheadRejectEvent) => metrics.count(tool));
 * ```
 */
export interface ToolBulkheadRejectEvent {
  readonly callId: string;
  readonly runId: string;
  readonly tool: string;
}

/**
 * Stops a subscription.
 *
 * @example
 * ```ts
 * const subscription: Subscription = plugin.events.onGiveUp(() => {});
 * subscription.dispose();
 * ```
 */
export interface Subscription {
  dispose(): void;
}

/**
 * Subscribes `listener` to one kind of event; a listener that throws is ignored (observing must
 * never change a call).
 *
 * @example
 * ```ts
 * const onGiveUp: ResilienceEvent<ToolGiveUpEvent> = plugin.events.onGiveUp;
 * ```
 */
export type ResilienceEvent<T> = (listener: (event: T) => void) => Subscription;

/**
 * The typed events of one resilience plugin, in the manner of cockatiel's policy events: what
 * belongs to the plugin (its breakers, its bulkheads, its give-ups). A retry belongs to its run and
 * reaches it through the call's context (`ToolCallContext.report`), never through the plugin.
 *
 * @example
 * ```ts
 * const plugin = createResiliencePlugin();
 * plugin.events.onGiveUp(({ tool, attempts }) => log.warn({ tool, attempts }, "gave up"));
 * ```
 */
export interface ResilienceEvents {
  /**
   * Every retry this plugin schedules, in any run.
   *
   * @deprecated Kept so existing listeners keep working; nothing in needlework reads it. A retry
   * belongs to its run: read the run's `tool-retry` event (`agent.stream()`, or a plugin's
   * `observeRun`), or pass `report` to `invoker.invoke`.
   */
  readonly onRetry: ResilienceEvent<RetryEvent>;
  readonly onGiveUp: ResilienceEvent<ToolGiveUpEvent>;
  readonly onBreak: ResilienceEvent<ToolCircuitEvent>;
  readonly onHalfOpen: ResilienceEvent<ToolCircuitEvent>;
  readonly onReset: ResilienceEvent<ToolCircuitEvent>;
  readonly onBulkheadReject: ResilienceEvent<ToolBulkheadRejectEvent>;
}

/** One event: emits to its listeners, each guarded. */
class GuardedEvent<T> {
  private readonly emitter = new EventEmitter<T>();
  readonly subscribe: ResilienceEvent<T> = (listener) =>
    this.emitter.addListener((event) => {
      try {
        listener(event);
      } catch {
        // A broken listener must not turn a retry or a rejection into a crash.
      }
    });
  get listening(): boolean {
    return this.emitter.size > 0;
  }
  emit(event: T): void {
    this.emitter.emit(event);
  }
}

/**
 * The emitting side of {@link ResilienceEvents}, held by the middleware. @internal
 *
 * @example
 * ```ts
 * const emitters = new ResilienceEmitters();
 * emitters.events.onGiveUp(console.log);
 * ```
 */
export class ResilienceEmitters {
  readonly retry = new GuardedEvent<RetryEvent>();
  readonly giveUp = new GuardedEvent<ToolGiveUpEvent>();
  readonly break = new GuardedEvent<ToolCircuitEvent>();
  readonly halfOpen = new GuardedEvent<ToolCircuitEvent>();
  readonly reset = new GuardedEvent<ToolCircuitEvent>();
  readonly bulkheadReject = new GuardedEvent<ToolBulkheadRejectEvent>();
  readonly events: ResilienceEvents = Object.freeze({
    onRetry: this.retry.subscribe,
    onGiveUp: this.giveUp.subscribe,
    onBreak: this.break.subscribe,
    onHalfOpen: this.halfOpen.subscribe,
    onReset: this.reset.subscribe,
    onBulkheadReject: this.bulkheadReject.subscribe,
  });
}
