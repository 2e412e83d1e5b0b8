/*
 * What a window's tool health holds: each tool's figures, the window, and the totals counted. Types
 * only (the journal contract names them; `toolHealthOf` in tool-health.ts computes them from runs).
 */

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

/**
 * The runs {@link RunJournal.toolHealth} counts: those started in `[from, to]` (ISO 8601; `to`
 * defaults to now).
 *
 * @example
 * ```ts
 * const window: ToolHealthWindow = { from: new Date(Date.now() - 3_600_000).toISOString() };
 * ```
 */
export interface ToolHealthWindow {
  readonly from: string;
  readonly to?: string;
}

/**
 * Every call of a window counted: how many runs and calls it holds, and each tool's health, most
 * calls first.
 *
 * @example
 * ```ts
 * const report = await store.journal.toolHealth?.({ from: "2026-11-28T00:00:00Z" });
 * console.log(report?.runs, report?.calls, report?.tools[0]?.p95Ms);
 * ```
 */
export interface ToolHealthReport {
  readonly runs: number;
  readonly calls: number;
  readonly tools: readonly ToolHealth[];
}
