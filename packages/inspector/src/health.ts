/*
 * Each tool's health over a window: every call of the runs started in it. A store that computes it
 * (`journal.toolHealth`: PostgreSQL, in SQL) answers itself; any other is read run by run, every run
 * of the window, never a sample.
 */
import type { JournaledRun, ToolHealth } from "@needlework/durable";
import { toolHealthOf } from "@needlework/durable";
import type { Inspection } from "./inspection.js";

export type { ToolHealth } from "@needlework/durable";

/** What `GET /api/health` answers. */
export interface WindowHealth {
  readonly windowMinutes: number;
  /** Runs started in the window, and every call of theirs: all counted. */
  readonly runs: number;
  readonly calls: number;
  /** Always true: the figures count every call of the window. */
  readonly complete: true;
  /** Where they were computed: by the store (`store`, in SQL), or here from every run read (`read`). */
  readonly computed: "store" | "read";
  /** When the figures were computed (ISO 8601): the window ends then. A window's figures are kept a few seconds. */
  readonly asOf: string;
  readonly tools: readonly ToolHealth[];
}

/** Runs read at once while counting a window run by run. */
const READ_AT_ONCE = 20;

/** The health of every tool over the runs started in the last `windowMinutes`. */
export async function windowHealth(k: Inspection, windowMinutes: number, now = Date.now()): Promise<WindowHealth> {
  const since = now - windowMinutes * 60_000;
  const from = new Date(since).toISOString();
  const to = new Date(now).toISOString();
  const { journal, readRun } = k;
  if (typeof journal.toolHealth === "function") {
    const report = await journal.toolHealth({ from, to });
    const { runs, calls, tools } = report;
    return { windowMinutes, runs, calls, complete: true, computed: "store", asOf: to, tools };
  }
  // Newest first, page by page, until the window's start: every run of the window read (a run that
  // cannot be read fails the request: a figure without it would be a sample).
  const runs: JournaledRun[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await journal.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    const inWindow = page.runs.filter((s) => Date.parse(s.startedAt) >= since && Date.parse(s.startedAt) <= now);
    for (let at = 0; at < inWindow.length; at += READ_AT_ONCE) {
      const read = await Promise.all(inWindow.slice(at, at + READ_AT_ONCE).map((s) => readRun(s.runId)));
      for (const run of read) if (run) runs.push(run);
    }
    const older = page.runs.some((s) => Date.parse(s.startedAt) < since);
    if (older || !page.next) break;
    cursor = page.next;
  }
  const report = toolHealthOf(runs);
  const { calls, tools } = report;
  return { windowMinutes, runs: report.runs, calls, complete: true, computed: "read", asOf: to, tools };
}

/** How long a window's figures are served as they are; then recomputed (meanwhile served, up to `STALE_MS`). */
const FRESH_MS = 10_000;
const STALE_MS = 5 * 60_000;
/** Windows kept at once. */
const WINDOWS_KEPT = 16;

/**
 * {@link windowHealth} cached per window: counting every call of a long window takes a while over
 * 100,000 runs, so each window's figures are kept `FRESH_MS` (each answer says when it was computed,
 * `asOf`), then recomputed in the background while the kept ones are served, up to `STALE_MS` old.
 * An action of this inspector (`changed`) forgets them all.
 */
export function cachedHealth(k: Inspection): (windowMinutes: number) => Promise<WindowHealth> {
  const kept = new Map<number, { at: number; value: WindowHealth }>();
  const computing = new Map<number, Promise<WindowHealth>>();
  k.changed.on("change", () => kept.clear());
  const compute = (windowMinutes: number): Promise<WindowHealth> => {
    let running = computing.get(windowMinutes);
    if (running === undefined) {
      const at = Date.now();
      running = windowHealth(k, windowMinutes, at)
        .then((value) => {
          if (kept.size >= WINDOWS_KEPT && !kept.has(windowMinutes)) kept.delete(kept.keys().next().value!);
          kept.set(windowMinutes, { at, value });
          return value;
        })
        .finally(() => computing.delete(windowMinutes));
      computing.set(windowMinutes, running);
    }
    return running;
  };
  return async (windowMinutes) => {
    const entry = kept.get(windowMinutes);
    const age = entry === undefined ? Number.POSITIVE_INFINITY : Date.now() - entry.at;
    if (entry !== undefined && age < FRESH_MS) return entry.value;
    if (entry !== undefined && age < STALE_MS) {
      // A failed refresh leaves the kept figures (their `asOf` says how old they are); the next request tries again.
      compute(windowMinutes).catch(() => undefined);
      return entry.value;
    }
    return compute(windowMinutes);
  };
}
