/*
 * Each tool's health over the runs of a window: calls, failures by error code, and latency
 * percentiles (p50, p95) of its settled calls. One pass over the calls, then one sort per tool.
 */
import type { JournaledRun } from "@needlework/durable";

/**
 * One tool's figures over a window of runs.
 *
 * @example
 * ```ts
 * const { tools } = await (await fetch(`${inspector.url}api/health?minutes=60`)).json();
 * for (const t of tools as ToolHealth[]) console.log(t.tool, t.calls, t.failures, t.p95Ms);
 * ```
 */
export interface ToolHealth {
  readonly tool: string;
  readonly calls: number;
  /** Settled calls whose status was not `ok` or `partial`. */
  readonly failures: number;
  /** Failures by error code (`UNKNOWN` for a failure with none). */
  readonly byCode: Readonly<Record<string, number>>;
  /** Latency percentiles of settled calls, in ms (nearest rank); absent with no latency recorded. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The health of every tool called in `runs`, most calls first. */
export function toolHealth(runs: readonly JournaledRun[]): ToolHealth[] {
  const tools = new Map<
    string,
    { calls: number; failures: number; byCode: Map<string, number>; latencies: number[] }
  >();
  for (const run of runs)
    for (const call of run.calls) {
      let entry = tools.get(call.tool);
      if (!entry) {
        entry = { calls: 0, failures: 0, byCode: new Map(), latencies: [] };
        tools.set(call.tool, entry);
      }
      entry.calls++;
      const outcome = call.outcome?.outcome;
      if (!outcome) continue;
      const latency = outcome.metadata?.latencyMs;
      if (typeof latency === "number" && Number.isFinite(latency)) entry.latencies.push(latency);
      if (outcome.status !== "ok" && outcome.status !== "partial") {
        entry.failures++;
        const code = outcome.errorCode ?? "UNKNOWN";
        entry.byCode.set(code, (entry.byCode.get(code) ?? 0) + 1);
      }
    }
  return [...tools]
    .map(([tool, e]) => {
      const sorted = e.latencies.sort((a, b) => a - b);
      return {
        tool,
        calls: e.calls,
        failures: e.failures,
        byCode: Object.fromEntries(e.byCode),
        ...(sorted.length > 0 ? { p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95) } : {}),
      };
    })
    .sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : 1));
}
