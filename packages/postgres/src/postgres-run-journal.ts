import type {
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  JournalCommit,
  RunJournal,
  RunCancelRequest,
  RunLeaseInfo,
  RunListPage,
  RunListQuery,
  RunSummary,
} from "@needlework/durable";
import { checkRunQuery, cursorAfter, DEFAULT_LEASE_MS, RUNNING, runBusy, runEnded } from "@needlework/durable";
import type { Pool } from "pg";
import { type NamedStatement, NamedStatements, namedStatement } from "./named-statements.js";
import { escapeText, jsonParam } from "./stored-text.js";
import { withStoreRetry } from "./store-errors.js";
import { cancelRequestedIn, requestCancelIn } from "./postgres-run-cancel.js";
import { findRuns, toolHealthIn } from "./postgres-run-find.js";
import { type ReadRow, readRun, runOfText, runReadStatement } from "./postgres-run-read.js";
import {
  BUSY_MS,
  callRow,
  callsInsert,
  ENDED,
  HELD,
  outcomeRows,
  outcomesInsert,
  type SummaryRow,
  turnRow,
  turnsInsert,
} from "./postgres-journal-rows.js";

/**
 * The run journal in PostgreSQL: tables `runs`, `run_turns` and `run_calls` of the store's schema.
 * Each write is one statement (one commit), durable when the promise resolves; a round's call
 * starts are one statement, outcomes that settle together another. A run is leased (`runs.lease_owner`,
 * `lease_epoch`, `lease_expires`): each take adds one to the epoch under a new owner, and every write
 * is fenced and renews the lease in the same statement: it is refused with `RUN_BUSY` unless its
 * owner holds the current take, so a stale process never writes over, ends or re-opens a run.
 * Strings are stored escaped where PostgreSQL refuses them (NUL, lone surrogates) and read back as written.
 *
 * @example
 * ```ts
 * const run = await store.journal.read(runId);
 * ```
 */
export class PostgresRunJournal implements RunJournal {
  /** `commit`, `takeAndRead` and `read`: sent named (see named-statements.ts). */
  private readonly hot: NamedStatements;
  private readonly commitStatement: NamedStatement;
  private readonly takeStatement: NamedStatement;
  private readonly readStatement: NamedStatement;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    readonly leaseMs: number = DEFAULT_LEASE_MS,
  ) {
    this.hot = new NamedStatements(pool);
    this.commitStatement = namedStatement(
      `SELECT leased, busy_ms FROM ${schema}.journal_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    );
    // Its columns named, not `*`: a prepared statement's result type never changes under it.
    this.takeStatement = namedStatement(
      `SELECT run_id, agent, instructions, input, started_at, status, ended_at, result::text AS result, taken, busy_ms,
         turns::text AS turns, calls::text AS calls
       FROM ${schema}.journal_take_and_read($1, $2, $3, $4)`,
    );
    this.readStatement = runReadStatement(schema);
  }

  async runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    const { rowCount } = await withStoreRetry("recording a run start", false, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.runs (run_id, agent, instructions, input, started_at, lease_owner, lease_epoch, lease_expires)
         VALUES ($1, $2, $3, $4, $5, $6, 1, now() + $7 * interval '1 millisecond') ON CONFLICT (run_id) DO NOTHING`,
        [
          start.runId,
          start.agent,
          escapeText(start.instructions),
          escapeText(start.input),
          start.startedAt,
          owner,
          this.leaseMs,
        ],
      ),
    );
    return rowCount === 1;
  }

  /**
   * One statement: the run is taken when it has no holder (never leased, or ended), its holder's
   * lease expired, or `owner` holds it (then only extended); a take by a new owner adds one to
   * `lease_epoch`. Two takes at once: the row lock makes the second see the first's lease, live.
   */
  async lease(runId: string, owner: string): Promise<boolean> {
    const { rows } = await withStoreRetry("taking a run's lease", true, () =>
      this.pool.query<{ taken: boolean; found: boolean; busy_ms: number | null; status: string | null }>(
        // A final end (any but awaiting_approval, which a resume re-opens) is never taken again.
        `WITH prior AS (SELECT ${BUSY_MS} AS busy_ms, status FROM ${this.schema}.runs WHERE run_id = $1),
         taken AS (
           UPDATE ${this.schema}.runs SET lease_owner = $2,
             lease_epoch = CASE WHEN lease_owner = $2 AND ${HELD} THEN lease_epoch ELSE lease_epoch + 1 END,
             lease_expires = now() + $3 * interval '1 millisecond'
           WHERE run_id = $1 AND (status IS NULL OR status = 'awaiting_approval')
             AND (lease_owner IS NULL OR (lease_owner = $2 AND ${HELD}) OR lease_expires IS NULL OR lease_expires <= now())
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM taken) AS taken, EXISTS (SELECT 1 FROM prior) AS found,
                (SELECT busy_ms FROM prior) AS busy_ms, (SELECT status FROM prior) AS status`,
        [runId, owner, this.leaseMs],
      ),
    );
    const row = rows[0];
    if (row?.found !== true) return false;
    if (row.taken !== true && row.status !== null && row.status !== "awaiting_approval")
      throw runEnded(runId, row.status);
    // Not taken, yet the lease looked free when the statement began: another take won the row lock
    // meanwhile, and its lease has about leaseMs to run.
    if (row.taken !== true) throw runBusy(runId, Number(row.busy_ms ?? 0) || this.leaseMs);
    return true;
  }

  async renew(runId: string, owner: string): Promise<boolean> {
    const { rowCount } = await withStoreRetry("renewing a run's lease", true, () =>
      this.pool.query(
        `UPDATE ${this.schema}.runs SET lease_expires = now() + $3 * interval '1 millisecond'
         WHERE run_id = $1 AND lease_owner = $2 AND ${HELD}`,
        [runId, owner, this.leaseMs],
      ),
    );
    return rowCount === 1;
  }

  async release(runId: string, owner: string): Promise<void> {
    await withStoreRetry("giving a run's lease up", true, () =>
      this.pool.query(
        // The owner's name stays, expired: anyone may take the run now, but no one else's late write lands.
        `UPDATE ${this.schema}.runs SET lease_expires = now() WHERE run_id = $1 AND lease_owner = $2 AND ${HELD}`,
        [runId, owner],
      ),
    );
  }

  turn(runId: string, turn: JournaledTurn, owner: string): Promise<void> {
    return this.fenced("recording a model turn", runId, owner, turnsInsert(this.schema, "$4"), [
      jsonParam([turnRow(turn)]),
    ]);
  }

  callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void> {
    return this.fenced("recording tool call starts", runId, owner, callsInsert(this.schema, "$4"), [
      jsonParam(calls.map(callRow)),
    ]);
  }

  outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string): Promise<void> {
    return this.fenced("recording tool outcomes", runId, owner, outcomesInsert(this.schema, "$4"), [
      jsonParam(outcomeRows(outcomes)),
    ]);
  }

  async runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void> {
    // One UPDATE of the run row, fenced in its WHERE (a lease CTE would update the same row twice);
    // the ended run has no holder (its lease is ENDED), so no late write lands and no renewal takes it
    // back. The same end again by the same owner (a retry after a connection lost past the commit) is
    // accepted, as it was.
    const { rows } = await withStoreRetry("recording a run end", true, () =>
      this.pool.query<{ ended: boolean; busy_ms: number | null }>(
        `WITH ended AS (
           UPDATE ${this.schema}.runs SET status = $3, ended_at = $4, result = $5, lease_expires = ${ENDED}
           WHERE run_id = $1 AND lease_owner = $2
             AND (${HELD} OR (status = $3 AND ended_at = $4::timestamptz)) RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM ended) AS ended,
                (SELECT ${BUSY_MS} FROM ${this.schema}.runs WHERE run_id = $1) AS busy_ms`,
        [runId, owner, end.status, end.endedAt, jsonParam(end.result)],
      ),
    );
    if (rows[0]?.ended !== true) throw runBusy(runId, Number(rows[0]?.busy_ms ?? 0));
  }

  /**
   * One write as the lease's `owner`, in one statement: accepted only while `owner` holds the run's
   * current take (fencing: once another process took it, or it ended, the write is refused), and the
   * lease renewed. `$1` is the run id, `$2` the owner, `$3` leaseMs; the write reads the `lease` row.
   * No lease row: nothing was written, and `RUN_BUSY` says how long the holder's lease has left.
   */
  private async fenced(what: string, runId: string, owner: string, write: string, values: unknown[]): Promise<void> {
    const { rows } = await withStoreRetry(what, true, () =>
      this.pool.query<{ leased: number; busy_ms: number | null }>(
        `WITH lease AS (
           UPDATE ${this.schema}.runs SET lease_expires = now() + $3 * interval '1 millisecond'
           WHERE run_id = $1 AND lease_owner = $2 AND ${HELD} RETURNING run_id
         ), written AS (${write} RETURNING 1)
         SELECT (SELECT count(*) FROM lease)::int AS leased,
                (SELECT ${BUSY_MS} FROM ${this.schema}.runs WHERE run_id = $1) AS busy_ms`,
        [runId, owner, this.leaseMs, ...values],
      ),
    );
    if (rows[0]?.leased !== 1) throw runBusy(runId, Number(rows[0]?.busy_ms ?? 0));
  }

  /**
   * Every record of `records` in one statement (one commit): a call of `journal_commit` (migration
   * 6). With `start`, the run row is inserted leased to `owner` (nothing is written, `false`, when
   * the run exists) and the other records follow it; otherwise they follow the fenced lease update,
   * which also writes the end and the lease's new expiry (renewed; now, when released; ENDED, when
   * ended), so the run row is updated once. Outcomes, turns and call starts are written in that order.
   */
  async commit(runId: string, records: JournalCommit, owner: string): Promise<boolean> {
    const { start, end, outcomes, turns, calls } = records;
    const values = [
      runId,
      owner,
      this.leaseMs,
      start === undefined ? null : start.agent,
      start === undefined ? null : escapeText(start.instructions),
      start === undefined ? null : escapeText(start.input),
      start === undefined ? null : start.startedAt,
      end === undefined ? null : end.status,
      end === undefined ? null : end.endedAt,
      end === undefined ? null : jsonParam(end.result),
      records.release === true,
      outcomes === undefined || outcomes.length === 0 ? null : jsonParam(outcomeRows(outcomes)),
      turns === undefined || turns.length === 0 ? null : jsonParam(turns.map(turnRow)),
      calls === undefined || calls.length === 0 ? null : jsonParam(calls.map(callRow)),
    ];
    const { rows } = await withStoreRetry(
      start === undefined ? "recording a run's progress" : "recording a run start",
      start === undefined,
      () => this.hot.query<{ leased: boolean; busy_ms: number | null }>(this.commitStatement, values),
    );
    if (rows[0]?.leased === true) return true;
    if (start !== undefined) return false;
    throw runBusy(runId, Number(rows[0]?.busy_ms ?? 0));
  }

  /**
   * One statement, a call of `journal_take_and_read` (migration 6): when the run is `agent`'s and
   * has not ended, its lease is taken for `owner` under the rules of {@link PostgresRunJournal.lease};
   * then the run is read. The read follows the take in one transaction: it sees every write committed
   * before the take, and a write by the previous holder after it is refused (fenced), so a resume
   * never continues from a read that misses one.
   */
  async takeAndRead(runId: string, owner: string, agent: string): Promise<JournaledRun | undefined> {
    const { rows } = await withStoreRetry("taking and reading a run", true, () =>
      this.hot.query<ReadRow & { taken: boolean; busy_ms: number | null }>(this.takeStatement, [
        runId,
        owner,
        this.leaseMs,
        agent,
      ]),
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    if (row.agent === agent && row.ended_at === null && row.taken !== true)
      throw runBusy(runId, Number(row.busy_ms ?? 0) || this.leaseMs);
    return runOfText(row);
  }

  /**
   * Runs newest first, paged by keyset (start time, then run id), through the indexes of migration 3:
   * a page costs the same on the ten-thousandth run as on the first.
   */
  async list(query?: RunListQuery): Promise<RunListPage> {
    const { status, agent, limit, after } = checkRunQuery("PostgresRunJournal", query);
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    if (status === RUNNING) where.push("ended_at IS NULL");
    else if (status !== undefined) where.push(`status = ${param(status)} AND ended_at IS NOT NULL`);
    if (agent !== undefined) where.push(`agent = ${param(agent)}`);
    if (after !== undefined)
      where.push(
        `(started_at, run_id COLLATE "C") < (${param(after.startedAt)}::timestamptz, ${param(after.runId)}::text COLLATE "C")`,
      );
    const sql = `SELECT run_id, agent, started_at, status, ended_at FROM ${this.schema}.runs
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY started_at DESC, run_id COLLATE "C" DESC LIMIT ${param(limit + 1)}`;
    const { rows } = await withStoreRetry("listing runs", true, () => this.pool.query<SummaryRow>(sql, values));
    const runs = rows.slice(0, limit).map(
      (row): RunSummary => ({
        runId: row.run_id,
        agent: row.agent,
        startedAt: row.started_at.toISOString(),
        status: row.ended_at === null ? RUNNING : (row.status ?? ""),
        ...(row.ended_at === null ? {} : { endedAt: row.ended_at.toISOString() }),
      }),
    );
    return rows.length > limit ? { runs, next: cursorAfter(runs[runs.length - 1]!) } : { runs };
  }

  /** A run's cancel request, who asked and when (see postgres-run-cancel.ts). */
  readonly requestCancel = (runId: string, request: RunCancelRequest): Promise<RunCancelRequest> =>
    requestCancelIn(this.pool, this.schema, runId, request);
  readonly cancelRequested = (runId: string): Promise<RunCancelRequest | undefined> =>
    cancelRequestedIn(this.pool, this.schema, runId);
  /** Runs found by the inspector's filters, and every call of a window per tool, in SQL (postgres-run-find.ts). */
  readonly find: NonNullable<RunJournal["find"]> = (query) => findRuns(this.pool, this.schema, query);
  readonly toolHealth: NonNullable<RunJournal["toolHealth"]> = (window) => toolHealthIn(this.pool, this.schema, window);

  async leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    const { rows } = await withStoreRetry("reading a run's lease", true, () =>
      this.pool.query<{ lease_owner: string | null; lease_epoch: string | number; lease_expires: Date | null }>(
        `SELECT lease_owner, lease_epoch, lease_expires FROM ${this.schema}.runs WHERE run_id = $1 AND ${HELD}`,
        [runId],
      ),
    );
    const row = rows[0];
    // No owner (or an ended run's lease): nobody holds it.
    return row?.lease_owner && row.lease_expires
      ? { owner: row.lease_owner, epoch: Number(row.lease_epoch), expiresAt: row.lease_expires.toISOString() }
      : undefined;
  }

  /** The run as written, in one statement (see postgres-run-read.ts). */
  async read(runId: string): Promise<JournaledRun | undefined> {
    return withStoreRetry("reading a run", true, () => readRun(this.hot, this.readStatement, runId));
  }
}
