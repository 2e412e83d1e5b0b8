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
    return { windowMinutes, runs: report.runs, calls: report.calls, complete: true, computed: "store", tools: report.tools };
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
  return { windowMinutes, runs: report.runs, calls: report.calls, complete: true, computed: "read", tools: report.tools };
}
