/*
 * A PostgresRunJournal's cancel requests: two columns of the run's row (`cancel_requested_by`,
 * `cancel_requested_at`, migration 8), set once; deleted with the run.
 */
import { checkCancellable, checkCancelRequest, type RunCancelRequest } from "@needlework/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

interface CancelRow {
  readonly found: boolean;
  readonly status: string | null;
  readonly by: string | null;
  readonly at: Date | string | null;
}

const iso = (at: Date | string): string => (at instanceof Date ? at : new Date(at)).toISOString();

/**
 * Records `request` on a run not ended for good, in one statement: the first request stays (a
 * second resolves it unchanged); `RUN_NOT_FOUND` or `RUN_ENDED` otherwise. @internal
 */
export async function requestCancelIn(
  pool: Pool,
  schema: string,
  runId: string,
  request: RunCancelRequest,
): Promise<RunCancelRequest> {
  const asked = checkCancelRequest("PostgresRunJournal.requestCancel", request);
  const { rows } = await withStoreRetry("recording a cancel request", true, () =>
    pool.query<CancelRow>(
      `WITH asked AS (
         UPDATE ${schema}.runs SET cancel_requested_by = coalesce(cancel_requested_by, $2),
           cancel_requested_at = coalesce(cancel_requested_at, $3)
         WHERE run_id = $1 AND (status IS NULL OR status = 'awaiting_approval')
         RETURNING cancel_requested_by AS by, cancel_requested_at AS at
       )
       SELECT EXISTS (SELECT 1 FROM ${schema}.runs WHERE run_id = $1) AS found,
              (SELECT status FROM ${schema}.runs WHERE run_id = $1) AS status,
              (SELECT by FROM asked) AS by, (SELECT at FROM asked) AS at`,
      [runId, asked.by, asked.at],
    ),
  );
  const row = rows[0];
  if (row?.by === null || row?.by === undefined || row.at === null) {
    checkCancellable(runId, row?.found === true, row?.status ?? undefined);
    throw new TypeError(`PostgresRunJournal: run '${runId}' changed while its cancel was recorded; ask again.`);
  }
  return { by: row.by, at: iso(row.at) };
}

/** The run's cancel request, or `undefined`. @internal */
export async function cancelRequestedIn(
  pool: Pool,
  schema: string,
  runId: string,
): Promise<RunCancelRequest | undefined> {
  const { rows } = await withStoreRetry("reading a cancel request", true, () =>
    pool.query<{ by: string | null; at: Date | string | null }>(
      `SELECT cancel_requested_by AS by, cancel_requested_at AS at FROM ${schema}.runs WHERE run_id = $1`,
      [runId],
    ),
  );
  const row = rows[0];
  return row?.by == null || row.at === null ? undefined : { by: row.by, at: iso(row.at) };
}
