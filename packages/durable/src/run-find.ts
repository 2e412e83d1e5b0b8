/*
 * Finding runs at scale: the query a store answers with its indexes (agent prefix, error code, time
 * range, status, a run id's part), each run with its figures, and a bounded scan that says how far
 * it has looked. Optional on a journal (`RunJournal.find`); PostgreSQL answers it in SQL.
 */
import { RunStoreError } from "./run-store-error.js";
import { checkRunQuery, type RunCursor, type RunListQuery, type RunSummary } from "./run-list.js";

/**
 * Which runs {@link RunJournal.find} returns: newest first, `limit` at a time, every filter given
 * applying at once. `status` may also be `interrupted` (not ended, its lease expired).
 *
 * @example
 * ```ts
 * const page = await store.journal.find?.({ agentPrefix: "crm", errorCode: "CONFLICT", limit: 20 });
 * ```
 */
export interface RunFindQuery extends RunListQuery {
  /** Runs whose agent name starts with this, in any case. */
  readonly agentPrefix?: string;
  /** Runs with a call that failed (or was not called) with this error code. */
  readonly errorCode?: string;
  /** Runs started at or after this time (ISO 8601). */
  readonly from?: string;
  /** Runs started at or before this time (ISO 8601). */
  readonly to?: string;
  /**
   * Runs whose id contains this, in any case: found by looking at runs newest first, at most `scan`
   * of them per page (then the page says how far it looked: {@link RunFindPage.scanned}).
   */
  readonly idContains?: string;
  /** How many runs a page looks at for `idContains`, from 1 to 100,000. Default 10,000. */
  readonly scan?: number;
}

/** A run's figures, counted as `run_health` counts them. */
export interface RunFigures {
  readonly turns: number;
  readonly calls: number;
  /** Calls that ran and failed. */
  readonly failures: number;
  /** Calls whose tool never ran (see `wasNotCalled`). */
  readonly notCalled: number;
  /** The codes its calls failed with (or were not called for), each once, in the order first seen. */
  readonly codes: readonly string[];
}

/** A run as {@link RunJournal.find} returns it: its summary and its figures. */
export interface FoundRun extends RunSummary {
  readonly figures: RunFigures;
  /** Present on a run not ended whose lease expired (its process died). */
  readonly interrupted?: true;
}

/**
 * A page of found runs, newest first.
 *
 * @example
 * ```ts
 * const page: RunFindPage = await journal.find!({ idContains: "7f3" });
 * if (page.scanned) console.log(`looked at ${page.scanned.runs} runs, back to ${page.scanned.through}`);
 * ```
 */
export interface RunFindPage {
  readonly runs: readonly FoundRun[];
  /** The cursor of the next page (same query); absent when nothing older can match. */
  readonly next?: string;
  /**
   * Present when the page stopped at its scan bound before it was full: how many runs it looked at,
   * and the start time of the oldest (`next` goes on from there).
   */
  readonly scanned?: { readonly runs: number; readonly through: string };
}

const DEFAULT_SCAN = 10_000;
const MAX_SCAN = 100_000;

/**
 * A {@link RunFindQuery} checked: the list query's checks, times parsed, scan in range. Throws
 * `RunStoreError` `INVALID_QUERY` naming the problem.
 *
 * @example
 * ```ts
 * const { limit, after, agentPrefix, from, scan } = checkFindQuery("MyJournal", query);
 * ```
 */
export function checkFindQuery(
  owner: string,
  query: RunFindQuery = {},
): Omit<ReturnType<typeof checkRunQuery>, "after"> & {
  after?: RunCursor;
  agentPrefix?: string;
  errorCode?: string;
  from?: Date;
  to?: Date;
  idContains?: string;
  scan: number;
} {
  const base = checkRunQuery(owner, query);
  const fail = (problem: string): never => {
    throw new RunStoreError("INVALID_QUERY", `${owner}.find: ${problem}`);
  };
  const text = (key: "agentPrefix" | "errorCode" | "idContains"): string | undefined => {
    const value = query[key];
    if (value !== undefined && (typeof value !== "string" || value === "" || value.length > 500))
      fail(`\`${key}\` must be a non-empty string.`);
    return value;
  };
  const time = (key: "from" | "to"): Date | undefined => {
    const value = query[key];
    if (value === undefined) return undefined;
    const date = new Date(typeof value === "string" ? value : Number.NaN);
    if (Number.isNaN(date.getTime())) fail(`\`${key}\` must be an ISO 8601 time.`);
    return date;
  };
  const scan = query.scan ?? DEFAULT_SCAN;
  if (!Number.isInteger(scan) || scan < 1 || scan > MAX_SCAN)
    fail(`\`scan\` must be an integer from 1 to ${MAX_SCAN} (got ${String(query.scan)}).`);
  const agentPrefix = text("agentPrefix");
  const errorCode = text("errorCode");
  const idContains = text("idContains");
  const from = time("from");
  const to = time("to");
  return {
    ...base,
    ...(agentPrefix === undefined ? {} : { agentPrefix }),
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(idContains === undefined ? {} : { idContains }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    scan,
  };
}
