import {
  type DeadLetterEntry,
  type DeadLetterFilter,
  type ManagedDeadLetterQueue,
  openDeadLetter,
  type PayloadCodec,
  PayloadSealer,
  sealDeadLetter,
  type StoredDeadLetter,
  unreadableLetter,
} from "@needlework/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";
import { jsonParam, unescapeJson } from "./stored-text.js";

/** Thrown inside `replay` for a letter the codec cannot open: released, and answered `false`. */
const UNREADABLE = Symbol("unreadable letter");

interface LetterRow {
  id: string;
  entry: DeadLetterEntry;
  acknowledged_at: Date | null;
  replayed_at: Date | null;
}

function toLetter(row: LetterRow): StoredDeadLetter {
  return {
    ...unescapeJson(row.entry),
    id: row.id,
    ...(row.acknowledged_at === null ? {} : { acknowledgedAt: row.acknowledged_at.toISOString() }),
    ...(row.replayed_at === null ? {} : { replayedAt: row.replayed_at.toISOString() }),
  };
}

/**
 * Dead letters in PostgreSQL (table `dead_letters`): shared by every instance, queryable, with
 * acknowledge and replay.
 *
 * @example
 * ```ts
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, deadLetters: store.deadLetters });
 * ```
 */
export class PostgresDeadLetterQueue implements ManagedDeadLetterQueue {
  private readonly seal: PayloadSealer | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    codec?: PayloadCodec,
    /** The store's identity its sealed letters are bound to (`postgres:<schema>`). */
    store?: string,
  ) {
    this.seal = codec === undefined ? undefined : new PayloadSealer(codec, store);
  }

  async append(given: DeadLetterEntry): Promise<void> {
    const entry = this.seal === undefined ? given : await sealDeadLetter(this.seal, given);
    // Not retried after a broken connection: the insert may have committed, and a second copy
    // would be a duplicate letter.
    await withStoreRetry("writing a dead letter", false, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.dead_letters (run_id, agent, tool, error_code, entry, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [entry.runId, entry.agent, entry.tool, entry.errorCode, jsonParam(entry), entry.time],
      ),
    );
  }

  /** Entries matching `filter`, oldest first. */
  async list(filter: DeadLetterFilter = {}): Promise<readonly StoredDeadLetter[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, value: unknown): void => {
      values.push(value);
      where.push(sql.replace("?", `$${values.length}`));
    };
    if (filter.agent !== undefined) add("agent = ?", filter.agent);
    if (filter.tool !== undefined) add("tool = ?", filter.tool);
    if (filter.errorCode !== undefined) add("error_code = ?", filter.errorCode);
    if (filter.runId !== undefined) add("run_id = ?", filter.runId);
    if (filter.since !== undefined) add("created_at >= ?", filter.since);
    if (filter.acknowledged !== undefined)
      where.push(filter.acknowledged ? "acknowledged_at IS NOT NULL" : "acknowledged_at IS NULL");
    const limit = filter.limit ?? 1000;
    if (!Number.isInteger(limit) || limit < 1)
      throw new TypeError(`PostgresDeadLetterQueue.list: limit must be a positive integer, got ${String(limit)}.`);
    const offset = filter.offset ?? 0;
    if (!Number.isInteger(offset) || offset < 0)
      throw new TypeError(
        `PostgresDeadLetterQueue.list: offset must be a non-negative integer, got ${String(offset)}.`,
      );
    values.push(limit, offset);
    const filters = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const sql = `SELECT id::text AS id, entry, acknowledged_at, replayed_at FROM ${this.schema}.dead_letters ${filters}
      ORDER BY id LIMIT $${values.length - 1} OFFSET $${values.length}`;
    const { rows } = await withStoreRetry("listing dead letters", true, () => this.pool.query<LetterRow>(sql, values));
    return Promise.all(rows.map((row) => this.letter(row)));
  }

  /** Marks a letter handled; `false` when there is no such letter or it already was. */
  async acknowledge(id: string): Promise<boolean> {
    if (!/^[1-9]\d{0,17}$/.test(id)) return false; // not an id this table hands out
    const { rowCount } = await withStoreRetry("acknowledging a dead letter", true, () =>
      this.pool.query(
        `UPDATE ${this.schema}.dead_letters SET acknowledged_at = now()
         WHERE id = $1::bigint AND acknowledged_at IS NULL`,
        [id],
      ),
    );
    return rowCount === 1;
  }

  /**
   * Replays a letter through `handler` (e.g. call the tool again once the cause is fixed). The letter
   * is claimed first (one replay at a time across instances); when `handler` resolves it is
   * acknowledged, when it throws the claim is released and the error rethrown. `false` when the
   * letter does not exist, is acknowledged, or is being replayed elsewhere.
   */
  async replay(id: string, handler: (letter: StoredDeadLetter) => Promise<void>): Promise<boolean> {
    const { rows } = await withStoreRetry("claiming a dead letter for replay", false, () =>
      this.pool.query<LetterRow>(
        `UPDATE ${this.schema}.dead_letters SET replayed_at = now()
         WHERE id = $1::bigint AND acknowledged_at IS NULL AND replayed_at IS NULL
         RETURNING id::text AS id, entry, acknowledged_at, replayed_at`,
        [id],
      ),
    );
    const row = rows[0];
    if (row === undefined) return false;
    try {
      const letter = await this.letter(row);
      // Nothing to run: released below (an unreadable letter stays open, never replayed).
      if (letter.unreadable) throw UNREADABLE;
      await handler(letter);
    } catch (error) {
      await withStoreRetry("releasing a dead letter", true, () =>
        this.pool.query(`UPDATE ${this.schema}.dead_letters SET replayed_at = NULL WHERE id = $1::bigint`, [id]),
      );
      if (error === UNREADABLE) return false;
      throw error;
    }
    await this.acknowledge(id);
    return true;
  }

  /** A row as a letter, opened with the codec; one the codec cannot open is listed as unreadable. */
  private async letter(row: LetterRow): Promise<StoredDeadLetter> {
    const letter = toLetter(row);
    if (this.seal === undefined) return letter;
    return openDeadLetter(this.seal, letter).catch(() => unreadableLetter(letter));
  }
}
