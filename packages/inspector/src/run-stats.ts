/*
 * A run's figures, counted as `run_health` counts them: a call that ran and failed is a failure, a
 * call whose tool never ran (skipped, denied, ...) is "not called", so the header, the result and
 * `run_health` agree.
 */
import type { FoundRun, JournaledCall, JournaledRun } from "@needlework/durable";
import { wasNotCalled } from "@needlework/durable";

/** A run's figures: what the runs list shows in its columns. */
export interface RunStats {
  /** Milliseconds from start to end (or to now while it runs). */
  readonly durationMs: number | undefined;
  readonly turns: number;
  readonly calls: number;
  /** Calls that ran and failed (as `run_health`'s `tools_failed` counts them). */
  readonly failures: number;
  /** Calls whose tool never ran: skipped, denied, unknown tool, invalid arguments, an open circuit (`tools_not_called`). */
  readonly notCalled: number;
  /** The error codes its calls failed with (or were not called for), each once, in the order first seen. */
  readonly codes: readonly string[];
}

export const isFailure = (status: string | undefined): boolean =>
  status !== undefined && status !== "ok" && status !== "partial";

/** `run_health` counted from a turn's settled calls, for a run that has not ended (the conversation is not stored until then). */
export function healthSoFar(calls: readonly (JournaledCall | undefined)[]): Record<string, unknown> {
  let ok = 0;
  let failed = 0;
  let notCalled = 0;
  for (const call of calls) {
    const outcome = call?.outcome?.outcome;
    if (!outcome) continue;
    if (!isFailure(outcome.status)) ok++;
    else if (wasNotCalled(outcome)) notCalled++;
    else failed++;
  }
  return {
    tools_ok: ok,
    tools_failed: failed,
    tools_not_called: notCalled,
    blocking_failure: failed + notCalled > 0,
    so_far: true,
  };
}

/** The figures of a run's list row, in one pass over its calls. */
export function runStats(run: JournaledRun, now = Date.now()): RunStats {
  let failures = 0;
  let notCalled = 0;
  const codes = new Set<string>();
  for (const call of run.calls) {
    const outcome = call.outcome?.outcome;
    if (!outcome || !isFailure(outcome.status)) continue;
    if (wasNotCalled(outcome)) notCalled++;
    else failures++;
    if (outcome.errorCode) codes.add(outcome.errorCode);
  }
  const started = Date.parse(run.startedAt);
  const ended = run.end ? Date.parse(run.end.endedAt) : now;
  return {
    durationMs: Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : undefined,
    turns: run.turns.length,
    calls: run.calls.length,
    failures,
    notCalled,
    codes: [...codes],
  };
}

/** The figures of a list row from a run the store found with its figures (`journal.find`). */
export function foundStats(run: FoundRun, now = Date.now()): RunStats {
  const started = Date.parse(run.startedAt);
  const ended = run.endedAt === undefined ? now : Date.parse(run.endedAt);
  return {
    durationMs: Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : undefined,
    turns: run.figures.turns,
    calls: run.figures.calls,
    failures: run.figures.failures,
    notCalled: run.figures.notCalled,
    codes: run.figures.codes,
  };
}
