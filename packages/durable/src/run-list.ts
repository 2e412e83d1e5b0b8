import { RunStoreError } from "./run-store-error.js";

/**
 * One run as a list shows it: ids, names, status and times only (never a payload, so a list reads
 * the same with or without a codec).
 *
 * @example
 * ```ts
 * const { runs } = await store.journal.list({ status: "running" });
 * for (const run of runs) console.log(run.runId, run.agent, run.startedAt);
 * ```
 */
export interface RunSummary {
  readonly runId: string;
  readonly agent: string;
  /** ISO 8601. */
  readonly startedAt: string;
  /** The status the run ended with (`completed`, `awaiting_approval`, ...), or `running` while it has not ended. */
  readonly status: string;
  /** ISO 8601, once the run ended. */
  readonly endedAt?: string;
}

/**
 * Which runs {@link RunJournal.list} returns: newest first, optionally of one status and one agent,
 * `limit` at a time (default 50, at most 500); pass the previous page's `next` as `cursor` for the next.
 *
 * @example
 * ```ts
 * const page = await store.journal.list({ status: "completed_with_failures", agent: "crm-sync", limit: 20 });
 * const more = page.next ? await store.journal.list({ status: "completed_with_failures", cursor: page.next }) : undefined;
 * ```
 */
export interface RunListQuery {
  /** A run status, or `running` for runs that have not ended. */
  readonly status?: string;
  readonly agent?: string;
  readonly limit?: number;
  /** The `next` of the previous page (same filters). */
  readonly cursor?: string;
}

/**
 * A page of runs, newest first.
 *
 * @example
 * ```ts
 * const page: RunListPage = await store.journal.list();
 * if (page.next) console.log("more runs");
 * ```
 */
export interface RunListPage {
  readonly runs: readonly RunSummary[];
  /** The cursor of the next page; absent on the last page. */
  readonly next?: string;
}

/** `status` of a run that has not ended. */
export const RUNNING = "running";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * The position a page ends at: the last run's start time and id (ties on the time are broken by id).
 *
 * @example
 * ```ts
 * const { after } = checkRunQuery("MyJournal", query); // after?.startedAt, after?.runId
 * ```
 */
export interface RunCursor {
  readonly startedAt: string;
  readonly runId: string;
}

/**
 * A {@link RunListQuery} checked: limit in range (default 50, at most 500), cursor decoded. Throws
 * `RunStoreError` `INVALID_QUERY` naming the problem. A store's `list` starts with it.
 *
 * @example
 * ```ts
 * const { status, agent, limit, after } = checkRunQuery("MyJournal", query);
 * ```
 */
export function checkRunQuery(
  owner: string,
  query: RunListQuery = {},
): { status?: string; agent?: string; limit: number; after?: RunCursor } {
  const fail = (problem: string): never => {
    throw new RunStoreError("INVALID_QUERY", `${owner}.list: ${problem}`);
  };
  if (typeof query !== "object" || query === null) fail("pass a query object, like { status: 'running', limit: 50 }.");
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    fail(`\`limit\` must be an integer from 1 to ${MAX_LIMIT} (got ${String(query.limit)}).`);
  for (const key of ["status", "agent", "cursor"] as const) {
    const value = query[key];
    if (value !== undefined && (typeof value !== "string" || value === "" || value.length > 500))
      fail(`\`${key}\` must be a non-empty string.`);
  }
  let after: RunCursor | undefined;
  if (query.cursor !== undefined) {
    try {
      const [startedAt, runId] = JSON.parse(Buffer.from(query.cursor, "base64url").toString("utf8")) as unknown[];
      if (typeof startedAt !== "string" || typeof runId !== "string" || Number.isNaN(Date.parse(startedAt)))
        throw new TypeError("not a cursor");
      after = { startedAt, runId };
    } catch {
      fail("`cursor` is not a cursor this store returned (pass a page's `next` unchanged).");
    }
  }
  return {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.agent === undefined ? {} : { agent: query.agent }),
    limit,
    ...(after === undefined ? {} : { after }),
  };
}

/**
 * The cursor after `run`: what a page's `next` holds when `run` is its last summary.
 *
 * @example
 * ```ts
 * const next = page.length === limit ? cursorAfter(page[page.length - 1]!) : undefined;
 * ```
 */
export function cursorAfter(run: RunSummary): string {
  return Buffer.from(JSON.stringify([new Date(run.startedAt).toISOString(), run.runId]), "utf8").toString("base64url");
}

/** Newest first; equal start times by run id, descending. @internal */
export function newestFirst(a: RunSummary, b: RunSummary): number {
  const byTime = Date.parse(b.startedAt) - Date.parse(a.startedAt);
  return byTime !== 0 ? byTime : a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
}

/**
 * One page of `summaries` (in any order) for a query: the list of the in-memory and file stores.
 * PostgreSQL does the same in SQL.
 * @internal
 */
export function pageOfRuns(owner: string, summaries: Iterable<RunSummary>, query?: RunListQuery): RunListPage {
  const { status, agent, limit, after } = checkRunQuery(owner, query);
  const afterTime = after && Date.parse(after.startedAt);
  const matching: RunSummary[] = [];
  for (const run of summaries) {
    if (status !== undefined && run.status !== status) continue;
    if (agent !== undefined && run.agent !== agent) continue;
    if (after !== undefined) {
      const time = Date.parse(run.startedAt);
      if (time > afterTime! || (time === afterTime && run.runId >= after.runId)) continue;
    }
    matching.push(run);
  }
  matching.sort(newestFirst);
  const runs = matching.slice(0, limit);
  return matching.length > limit ? { runs, next: cursorAfter(runs[runs.length - 1]!) } : { runs };
}
