// The run journal's reads at scale, in SQL: runs found by the inspector's filters with their figures
// (one statement per page, through the indexes of migrations 3 and 9), and each tool's health over
// a window (aggregates over the runs of the window, read through `runs_newest`, and their calls).
import type {
  FoundRun,
  RunFindPage,
  RunFindQuery,
  ToolHealth,
  ToolHealthReport,
  ToolHealthWindow,
} from "@needlework/durable";
import { checkFindQuery, cursorAfter, NOT_CALLED_CODES, RUNNING } from "@needlework/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

/** Newest first, ties by run id (as migration 3's indexes order them). */
const NEWEST = `started_at DESC, run_id COLLATE "C" DESC`;
/** A run not ended whose lease expired (or was never held): its process died. */
const INTERRUPTED = `(ended_at IS NULL AND (lease_owner IS NULL OR lease_expires IS NULL OR lease_expires <= now()))`;
/** A settled call whose status is a failure. */
const FAILED = `(c.outcome ->> 'status') NOT IN ('ok', 'partial')`;

interface FoundRow {
  run_id: string | null;
  agent: string;
  started_at: Date;
  status: string | null;
  ended_at: Date | null;
  interrupted: boolean;
  turns: number;
  calls: number;
  failures: number;
  not_called: number;
  codes: string[] | null;
  scanned?: number;
  edge_id?: string | null;
  edge_at?: Date | null;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Runs found by `query`, each with its figures: one statement. */
export async function findRuns(pool: Pool, schema: string, query: RunFindQuery | undefined): Promise<RunFindPage> {
  const q = checkFindQuery("PostgresRunJournal", query);
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const where: string[] = [];
  if (q.status === RUNNING) where.push("ended_at IS NULL");
  else if (q.status === "interrupted") where.push(INTERRUPTED);
  else if (q.status !== undefined) where.push(`status = ${param(q.status)} AND ended_at IS NOT NULL`);
  if (q.agent !== undefined) where.push(`agent = ${param(q.agent)}`);
  if (q.agentPrefix !== undefined) where.push(`lower(agent) LIKE lower(${param(likeLiteral(q.agentPrefix))}) || '%'`);
  if (q.from !== undefined) where.push(`started_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`started_at <= ${param(q.to)}`);
  if (q.after !== undefined)
    where.push(
      `(started_at, run_id COLLATE "C") < (${param(q.after.startedAt)}::timestamptz, ${param(q.after.runId)}::text COLLATE "C")`,
    );
  if (q.errorCode !== undefined)
    where.push(`EXISTS (SELECT 1 FROM ${schema}.run_calls c WHERE c.run_id = runs.run_id
      AND (c.outcome ->> 'errorCode') = ${param(q.errorCode)} AND ${FAILED})`);
  const filtered = `SELECT run_id, agent, started_at, status, ended_at, ${INTERRUPTED} AS interrupted
    FROM ${schema}.runs ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${NEWEST}`;
  const notCalled = param([...NOT_CALLED_CODES]);
  // A run's figures, counted as run_health counts them (durable's wasNotCalled, in SQL).
  const figures = `CROSS JOIN LATERAL (
      SELECT count(*)::int AS calls,
        count(*) FILTER (WHERE k.failed AND NOT k.never_ran)::int AS failures,
        count(*) FILTER (WHERE k.failed AND k.never_ran)::int AS not_called,
        array_agg(k.code ORDER BY k.seq) FILTER (WHERE k.failed AND k.code IS NOT NULL) AS codes
      FROM (SELECT c.seq, c.outcome ->> 'errorCode' AS code, ${FAILED} AS failed,
              ((c.outcome ->> 'status') = 'skipped' OR coalesce((c.outcome ->> 'errorCode') = ANY(${notCalled}::text[]), false)) AS never_ran
            FROM ${schema}.run_calls c WHERE c.run_id = r.run_id) k) f
    CROSS JOIN LATERAL (SELECT count(*)::int AS turns FROM ${schema}.run_turns t WHERE t.run_id = r.run_id) t`;
  const limit = param(q.limit + 1);
  const sql =
    q.idContains === undefined
      ? `SELECT r.*, f.*, t.* FROM (${filtered} LIMIT ${limit}) r ${figures} ORDER BY r.${NEWEST}`
      : // At most `scan` runs looked at (newest first), the id's part matched among them; the oldest
        // looked at is where the next page goes on from when this one is not full.
        `WITH looked AS MATERIALIZED (${filtered} LIMIT ${param(q.scan)}),
         edge AS (SELECT (SELECT count(*) FROM looked)::int AS scanned, e.run_id AS edge_id, e.started_at AS edge_at
                  FROM (SELECT 1) one LEFT JOIN LATERAL
                    (SELECT run_id, started_at FROM looked ORDER BY started_at, run_id COLLATE "C" LIMIT 1) e ON true),
         hits AS (SELECT r.*, f.*, t.* FROM (SELECT * FROM looked
                    WHERE strpos(lower(run_id), lower(${param(q.idContains)})) > 0 ORDER BY ${NEWEST} LIMIT ${limit}) r
                  ${figures})
         SELECT edge.*, hits.* FROM edge LEFT JOIN hits ON true ORDER BY hits.${NEWEST}`;
  const { rows } = await withStoreRetry("finding runs", true, () => pool.query<FoundRow>(sql, values));
  const found = rows.filter((row) => row.run_id !== null).map(foundRun);
  const runs = found.slice(0, q.limit);
  if (found.length > q.limit) return { runs, next: cursorAfter(runs[runs.length - 1]!) };
  const edge = rows[0];
  if (q.idContains !== undefined && edge?.scanned === q.scan && edge.edge_id && edge.edge_at) {
    const through = edge.edge_at.toISOString();
    return {
      runs,
      next: cursorAfter({ runId: edge.edge_id, startedAt: through, agent: "", status: "" }),
      scanned: { runs: edge.scanned, through },
    };
  }
  return { runs };
}

function foundRun(row: FoundRow): FoundRun {
  return {
    runId: row.run_id!,
    agent: row.agent,
    startedAt: row.started_at.toISOString(),
    status: row.ended_at === null ? RUNNING : (row.status ?? ""),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at.toISOString() }),
    ...(row.interrupted ? { interrupted: true as const } : {}),
    figures: {
      turns: row.turns,
      calls: row.calls,
      failures: row.failures,
      notCalled: row.not_called,
      codes: [...new Set(row.codes ?? [])],
    },
  };
}

interface HealthRow {
  tool: string;
  calls: number;
  failures: number;
  p50: number | null;
  p95: number | null;
  by_code: Record<string, number> | null;
  runs: number;
}

/**
 * Every call of the runs started in the window, counted per tool in one statement: the runs through
 * `runs_newest`, their calls by primary key; failures by code, and latency percentiles by nearest
 * rank (`percentile_disc`, as the inspector computed them).
 */
export async function toolHealthIn(pool: Pool, schema: string, window: ToolHealthWindow): Promise<ToolHealthReport> {
  const from = new Date(window?.from ?? Number.NaN);
  const to = window?.to === undefined ? new Date() : new Date(window.to);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
    throw new TypeError("PostgresRunJournal.toolHealth: pass { from, to? } as ISO 8601 times.");
  const sql = `WITH w AS MATERIALIZED (SELECT run_id FROM ${schema}.runs WHERE started_at >= $1 AND started_at <= $2),
    c AS MATERIALIZED (
      SELECT c.tool, ${FAILED} AS failed, c.outcome ->> 'errorCode' AS code,
        CASE WHEN jsonb_typeof(c.outcome -> 'metadata' -> 'latencyMs') = 'number'
          THEN (c.outcome -> 'metadata' ->> 'latencyMs')::float8 END AS latency
      FROM w JOIN ${schema}.run_calls c ON c.run_id = w.run_id),
    codes AS (SELECT tool, jsonb_object_agg(code, n) AS by_code
      FROM (SELECT tool, coalesce(code, 'UNKNOWN') AS code, count(*)::int AS n FROM c WHERE failed GROUP BY 1, 2) x
      GROUP BY tool),
    tools AS (SELECT tool, count(*)::int AS calls, count(*) FILTER (WHERE failed)::int AS failures,
        percentile_disc(0.5) WITHIN GROUP (ORDER BY latency) AS p50,
        percentile_disc(0.95) WITHIN GROUP (ORDER BY latency) AS p95
      FROM c GROUP BY tool)
    SELECT (SELECT count(*) FROM w)::int AS runs, tools.*, codes.by_code
    FROM (SELECT 1) one LEFT JOIN tools ON true LEFT JOIN codes ON codes.tool = tools.tool
    ORDER BY tools.calls DESC, tools.tool COLLATE "C"`;
  const { rows } = await withStoreRetry("computing tool health", true, () => pool.query<HealthRow>(sql, [from, to]));
  const tools = rows
    .filter((row) => row.tool !== null)
    .map(
      (row): ToolHealth => ({
        tool: row.tool,
        calls: row.calls,
        failures: row.failures,
        byCode: row.by_code ?? {},
        ...(row.p50 === null || row.p95 === null ? {} : { p50Ms: row.p50, p95Ms: row.p95 }),
      }),
    );
  return { runs: rows[0]?.runs ?? 0, calls: tools.reduce((n, t) => n + t.calls, 0), tools };
}
