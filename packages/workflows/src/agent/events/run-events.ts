import type { ChatMessage, ToolCallReport } from "@needlework/core";
import type { AgentEvent, AgentRunStatus, ToolCallRecord } from "@needlework/core/events";
import type { ToolCallInfo } from "../hooks.js";

/**
 * The run's view the hooks' moments carry: read (and copied) by a subscriber when it hears the
 * event, so a run nobody listens to copies nothing. @internal
 */
export interface RunMoment {
  readonly messages: readonly ChatMessage[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
  readonly toolCalls: number;
}

/** A model turn is about to be asked for (`onIterationStart`). @internal */
export interface IterationStartRunEvent {
  readonly type: "iteration-start";
  readonly iteration: number;
  readonly run: RunMoment;
  readonly replayed?: true;
}

/** One call's outcome is final and booked (`onToolCall`), compensate calls included. @internal */
export interface CallBookedRunEvent extends Omit<ToolCallInfo, "agent" | "runId"> {
  readonly type: "call-booked";
  readonly replayed?: true;
}

/** A model turn and its round are booked (`onIterationEnd`). @internal */
export interface IterationEndRunEvent {
  readonly type: "iteration-end";
  readonly iteration: number;
  readonly calls: readonly ToolCallRecord[];
  readonly run: RunMoment;
  readonly status: AgentRunStatus | undefined;
  readonly replayed?: true;
}

/**
 * A started run threw instead of ending (it has no `run-end`): telemetry hears it, the stream does
 * not (the stream's consumer gets the error itself). @internal
 */
export interface RunErrorRunEvent {
  readonly type: "run-error";
  readonly error: unknown;
  readonly replayed?: true;
}

/**
 * The one vocabulary a run speaks: the streamed {@link AgentEvent}s, the moments the hooks observe
 * (which carry more than a stream may show: the conversation, the exception of an outcome), and the
 * run's error. Model calls and tool executions are reported beside them to the telemetry
 * subscriber (see `telemetrySubscriber`), from where they happen. @internal
 */
export type RunEvent =
  | AgentEvent
  | IterationStartRunEvent
  | CallBookedRunEvent
  | IterationEndRunEvent
  | RunErrorRunEvent;

/**
 * A subscriber of a run's events. It is called in the order the run emits, one event at a time; a
 * returned promise is awaited before the next subscriber and the run go on (so a slow stream
 * consumer slows the run, and a failing hook fails it). @internal
 */
export type RunListener = (event: RunEvent) => void | Promise<void> | undefined;

/**
 * The typed event stream of one run. The loop emits every event here and knows no subscriber:
 * hooks, the stream's sink, and whatever the plugins observe subscribe to it. While the run replays
 * its journal, each event is marked `replayed: true` (the stream decides what that means for its
 * subscribers, the loop never does). Middleware reports (resilience's retries) reach it through the
 * call's context: `report` is what the loop passes as the calls' `InvokeOptions.report`.
 * @internal
 */
export class RunEvents {
  /** For the calls' `InvokeOptions.report`; undefined when nobody listens. */
  readonly report: ((event: ToolCallReport) => void) | undefined;

  constructor(
    private readonly listeners: readonly RunListener[],
    private readonly replaying: (() => boolean) | undefined,
  ) {
    this.report = listeners.length === 0 ? undefined : (event) => this.reportNow(event);
  }

  /** Hands `event` to every subscriber in order; a promise when one of them is still busy with it. */
  emit(event: RunEvent): Promise<void> | undefined {
    const { listeners } = this;
    if (listeners.length === 0) return undefined;
    const marked: RunEvent = this.replaying?.() === true ? { ...event, replayed: true } : event;
    return this.deliver(marked, 0);
  }

  /**
   * The run threw: `run-error` reaches every subscriber (none can change the error, nor delay it),
   * and the error is thrown on.
   */
  fail(error: unknown): never {
    for (const listener of this.listeners) {
      try {
        listener({ type: "run-error", error })?.then(undefined, () => undefined);
      } catch {
        // Observing must never change a run's error.
      }
    }
    throw error;
  }

  private deliver(event: RunEvent, from: number): Promise<void> | undefined {
    const { listeners } = this;
    for (let i = from; i < listeners.length; i++) {
      const pending = listeners[i]!(event);
      if (pending !== undefined) return pending.then(() => this.deliver(event, i + 1));
    }
    return undefined;
  }

  /**
   * A report from inside a call (a retry being scheduled, in a synchronous callback): handed on at
   * once; a subscriber's promise or failure never reaches the call.
   */
  private reportNow(report: ToolCallReport): void {
    const { callId, tool, attempt, delayMs, errorCode } = report;
    const event: AgentEvent = {
      type: "tool-retry",
      callId,
      tool,
      attempt,
      delayMs,
      ...(errorCode === undefined ? {} : { errorCode }),
    };
    for (const listener of this.listeners) {
      try {
        listener(event)?.then(undefined, () => undefined);
      } catch {
        // Observing must never change a call.
      }
    }
  }
}
