import type { AgentEvent } from "@needlework/core/events";
import type { TracedRun, TracedRunEvent, TracedRunResult, TracedRunStart } from "./traced-run.js";
import type { Tracing } from "./tracing.js";

/** A deprecated `wrapRun` in flight: the key of its span, until `observeRun` names it. */
interface WrappedRun {
  readonly agent: string;
}

/**
 * The deprecated run members of `openTelemetry()` (`wrapRun`, `observeRun`) over the span code the
 * telemetry events drive. Nothing pairs them through the async context any more: a `wrapRun` opens
 * its span at once, and the next `observeRun` of the same agent names the oldest unnamed one (runs
 * of one agent started together may swap names; the run id on each span is still its result's).
 * @internal
 */
export function runShims(tracing: Tracing): {
  wrapRun<R extends TracedRunResult>(run: TracedRunStart, body: () => Promise<R>): Promise<R>;
  observeRun(run: TracedRun): ((event: AgentEvent | TracedRunEvent) => void) | undefined;
} {
  const unnamed: WrappedRun[] = [];
  const settle = (key: WrappedRun): void => {
    const at = unnamed.indexOf(key);
    if (at >= 0) unnamed.splice(at, 1);
  };
  return {
    async wrapRun<R extends TracedRunResult>(run: TracedRunStart, body: () => Promise<R>): Promise<R> {
      await tracing.ready();
      const key: WrappedRun = { agent: run.agent };
      const started = tracing.openRun(key, run);
      if (started) unnamed.push(key);
      let result: R;
      try {
        result = await tracing.withinRun(key, body);
      } catch (error) {
        settle(key);
        tracing.failRun(key, error);
        throw error;
      }
      settle(key);
      tracing.closeRun(key, result);
      return result;
    },
    observeRun({ agent, runId }) {
      const key = unnamed.find((k) => k.agent === agent);
      if (key === undefined) return undefined;
      settle(key);
      tracing.nameRun(key, runId);
      // A replayed run-end is still this start's end (a resumeRun of a finished run): it closes the span.
      return (event) => {
        if (event.type === "run-end" && event.result !== undefined) tracing.closeRun(key, event.result);
      };
    },
  };
}
