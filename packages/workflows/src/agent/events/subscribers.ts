import { emitTelemetry, type RunTelemetry } from "@needlework/otel";
import type { ChatClient } from "@needlework/core";
import type { AgentFrameworkPlugin } from "../../plugin.js";
import type { AgentEvent } from "@needlework/core/events";
import type { AgentHooks } from "../hooks.js";
import { callHook } from "../hooks.js";
import type { RunEventSink } from "../stream/agent-run-stream.js";
import type { JournaledRuntime } from "../loop/run-state.js";
import { type RunEvent, RunEvents, type RunListener, type RunMoment } from "./run-events.js";

/** The moments the stream never shows: the hooks' and the run's error (the consumer gets the error itself). */
const HOOK_MOMENTS: ReadonlySet<RunEvent["type"]> = new Set([
  "iteration-start",
  "call-booked",
  "iteration-end",
  "run-error",
]);

const copied = (run: RunMoment) => ({ usage: { ...run.usage } });

/**
 * The agent's hooks as a subscriber of its runs' events: `onIterationStart`, `onToolCall` and
 * `onIterationEnd`, each awaited. Replayed events stay silent: a hook fired for those turns when
 * they first ran (documented in docs/budgets-and-stalls.md). Undefined when the agent has no hook.
 * @internal
 */
export function hookSubscriber(hooks: AgentHooks, agent: string, runId: string): RunListener | undefined {
  const { onIterationStart, onToolCall, onIterationEnd } = hooks;
  if (onIterationStart === undefined && onToolCall === undefined && onIterationEnd === undefined) return undefined;
  return (event) => {
    if (event.replayed === true) return undefined;
    switch (event.type) {
      case "iteration-start": {
        if (onIterationStart === undefined) return undefined;
        const { iteration, run } = event;
        const info = { agent, runId, iteration, messages: [...run.messages], toolCalls: run.toolCalls, ...copied(run) };
        return callHook(hooks, "onIterationStart", info);
      }
      case "call-booked": {
        if (onToolCall === undefined) return undefined;
        const { iteration, record, arguments: args, outcome } = event;
        return callHook(hooks, "onToolCall", { agent, runId, iteration, record, arguments: args, outcome });
      }
      case "iteration-end": {
        if (onIterationEnd === undefined) return undefined;
        const { iteration, calls, status, run } = event;
        return callHook(hooks, "onIterationEnd", { agent, runId, iteration, calls, status, ...copied(run) });
      }
      default:
        return undefined;
    }
  };
}

/**
 * A stream's sink as a subscriber: every {@link AgentEvent} (replayed ones marked `replayed: true`),
 * none of the hooks' moments. A `tool-retry` comes from inside a call, so it is queued at once; the
 * others wait while the stream's buffer is full.
 * @internal
 */
export function streamSubscriber(sink: RunEventSink): RunListener {
  return (event) => {
    if (HOOK_MOMENTS.has(event.type)) return undefined;
    if (event.type === "tool-retry") return sink.emitNow(event);
    return sink.emit(
      event as Exclude<RunEvent, { type: "iteration-start" | "call-booked" | "iteration-end" | "run-error" }>,
    );
  };
}

/**
 * The telemetry subscriber (the plugins' `telemetry`, composed) as a subscriber of one run's events:
 * its start (a replayed `run-start` is a resumed run's), its end (a replayed `run-end` too: each start
 * of a run ends) and its error. Only what `onRunStart` returns is awaited (a tracer being found).
 * @internal
 */
export function telemetrySubscriber(
  telemetry: RunTelemetry,
  agent: string,
  runId: string,
  chatClient: ChatClient,
): RunListener {
  return (event) => {
    // A subscriber still finding its tracer is waited for once, at the start: the run's work is then traced.
    if (event.type === "run-start")
      return emitTelemetry(telemetry, "onRunStart", { runId, agent, resumed: event.replayed === true, chatClient });
    if (event.type === "run-end") emitTelemetry(telemetry, "onRunEnd", { runId, agent, result: event.result });
    else if (event.type === "run-error") emitTelemetry(telemetry, "onRunError", { runId, agent, error: event.error });
    return undefined;
  };
}

/**
 * The event stream of one run of `runtime`: its telemetry, its hooks, then the stream's sink (when
 * streamed), then the plugins' run observers, in that order. Replayed events are marked from the
 * runtime's replay.
 * @internal
 */
export function openRunEvents(runtime: JournaledRuntime, runId: string, sink: RunEventSink | undefined): RunEvents {
  const { options } = runtime;
  const listeners: RunListener[] = [];
  // The agent's own client names the provider and model (the runtime's is the journal's).
  const { telemetry, telemetryClient = options.chatClient } = runtime;
  if (telemetry) listeners.push(telemetrySubscriber(telemetry, options.name, runId, telemetryClient));
  const hooks = hookSubscriber(options, options.name, runId);
  if (hooks) listeners.push(hooks);
  if (sink) listeners.push(streamSubscriber(sink));
  for (const observe of runtime.runObservers ?? []) {
    const listener = observe(runId);
    if (listener) listeners.push(listener);
  }
  return new RunEvents(listeners, runtime.replaying);
}

/**
 * The plugins' `observeRun` as run observers: each run asks each plugin for a subscriber, which
 * hears every {@link AgentEvent} (none of the hooks' moments). A plugin or subscriber that throws is
 * ignored, and nothing it returns is awaited: observing never changes or slows a run.
 * @internal
 */
export function pluginRunObservers(
  plugins: readonly AgentFrameworkPlugin[],
  agent: string,
): ((runId: string) => RunListener | undefined)[] {
  return plugins
    .filter((p) => typeof p.observeRun === "function")
    .map((plugin) => (runId: string): RunListener | undefined => {
      let observer: ((event: AgentEvent) => void) | undefined;
      try {
        observer = plugin.observeRun!({ agent, runId });
      } catch {
        return undefined;
      }
      if (typeof observer !== "function") return undefined;
      const observe = observer;
      return (event) => {
        if (HOOK_MOMENTS.has(event.type)) return undefined;
        try {
          const returned: unknown = observe(event as AgentEvent);
          if (returned instanceof Promise) returned.then(undefined, () => undefined);
        } catch {
          // Observing must never change a run.
        }
        return undefined;
      };
    });
}
