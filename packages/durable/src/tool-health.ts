/*
 * Each tool's health over a window of runs: calls, failures by error code, and latency percentiles
 * (nearest rank) of its settled calls. A store may compute it itself (`RunJournal.toolHealth`,
 * PostgreSQL in SQL); `toolHealthOf` computes it from runs read.
 */
import type { JournaledRun } from "./run-journal.js";
import type { ToolHealth, ToolHealthReport } from "./tool-health-report.js";

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Most calls first; equal counts by tool name. */
function byCallsThenName(a: ToolHealth, b: ToolHealth): number {
  return b.calls - a.calls || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);
}

/**
 * The health of every tool called in `runs` (every call counted), most calls first.
 *
 * @example
 * ```ts
 * const { calls, tools } = toolHealthOf(runs);
 * ```
 */
export function toolHealthOf(runs: readonly JournaledRun[]): ToolHealthReport {
  const tools = new Map<
    string,
    { calls: number; failures: number; byCode: Map<string, number>; latencies: number[] }
  >();
  let calls = 0;
  for (const run of runs)
    for (const call of run.calls) {
      calls++;
      let entry = tools.get(call.tool);
      if (!entry) {
        entry = { calls: 0, failures: 0, byCode: new Map(), latencies: [] };
        tools.set(call.tool, entry);
      }
      entry.calls++;
      const outcome = call.outcome?.outcome;
      if (!outcome) continue;
      const latency = outcome.metadata?.["latencyMs"];
      if (typeof latency === "number" && Number.isFinite(latency)) entry.latencies.push(latency);
      if (outcome.status !== "ok" && outcome.status !== "partial") {
        entry.failures++;
        const code = outcome.errorCode ?? "UNKNOWN";
        entry.byCode.set(code, (entry.byCode.get(code) ?? 0) + 1);
      }
    }
  const health = [...tools].map(([tool, e]): ToolHealth => {
    const sorted = e.latencies.sort((a, b) => a - b);
    return {
      tool,
      calls: e.calls,
      failures: e.failures,
      byCode: Object.fromEntries(e.byCode),
      ...(sorted.length > 0 ? { p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95) } : {}),
    };
  });
  return { runs: runs.length, calls, tools: health.sort(byCallsThenName) };
}
