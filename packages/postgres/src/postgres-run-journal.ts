import type {
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "@needlework/workflows/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

interface RunRow {
  run_id: string;
  agent: string;
  instructions: string;
  input: string;
  started_at: Date;
  status: string | null;
  ended_at: Date | null;
  result: JournaledRunEnd["result"] | null;
}
interface TurnRow {
  turn: number;
  message: JournaledTurn["message"];
  usage: JournaledTurn["usage"] | null;
  finish_reason: string | null;
}
interface CallRow {
  call_id: string;
  tool: string;
  arguments: JournaledCallStart["arguments"];
  idempotency_key: string;
  outcome: JournaledOutcome["outcome"] | null;
  formatted: string | null;
}

/**
 * The run journal in PostgreSQL: tables `runs`, `run_turns` and `run_calls` of the store's schema.
 * Each record is one statement (its own transaction), durable when the promise resolves; every
 * write but `runStarted` is an idempotent upsert, so it is retried after a broken connection.
 *
 * @example
 * ```ts
 * const run = await store.journal.read(runId);
 * ```
 */
export class PostgresRunJournal implements RunJournal {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  async runStarted(start: JournaledRunStart): Promise<boolean> {
    const { rowCount } = await withStoreRetry("recording a run start", false, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.runs (run_id, agent, instructions, input, started_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO NOTHING`,
        [start.runId, start.agent, start.instructions, start.input, start.startedAt],
      ),
    );
    return rowCount === 1;
  }

  async turn(runId: string, turn: JournaledTurn): Promise<void> {
    await withStoreRetry("recording a model turn", true, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.run_turns (run_id, turn, message, usage, finish_reason) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (run_id, turn) DO UPDATE
         SET message = EXCLUDED.message, usage = EXCLUDED.usage, finish_reason = EXCLUDED.finish_reason`,
        [
          runId,
          turn.index,
          JSON.stringify(turn.message),
          turn.usage === undefined ? null : JSON.stringify(turn.usage),
          turn.finishReason ?? null,
        ],
      ),
    );
  }

  async callStarted(runId: string, call: JournaledCallStart): Promise<void> {
    await withStoreRetry("recording a tool call start", true, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.run_calls (run_id, call_id, tool, arguments, idempotency_key)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, call_id) DO NOTHING`,
        [runId, call.callId, call.tool, JSON.stringify(call.arguments), call.idempotencyKey],
      ),
    );
  }

  async outcome(runId: string, outcome: JournaledOutcome): Promise<void> {
    const meta = outcome.outcome.metadata;
    await withStoreRetry("recording a tool outcome", true, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.run_calls (run_id, call_id, tool, idempotency_key, outcome, formatted, settled_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (run_id, call_id) DO UPDATE
         SET outcome = EXCLUDED.outcome, formatted = EXCLUDED.formatted, settled_at = EXCLUDED.settled_at`,
        [
          runId,
          outcome.callId,
          String(meta["tool"] ?? ""),
          String(meta["idempotencyKey"] ?? `${runId}:${outcome.callId}`),
          JSON.stringify(outcome.outcome),
          outcome.formatted,
        ],
      ),
    );
  }

  async runEnded(runId: string, end: JournaledRunEnd): Promise<void> {
    await withStoreRetry("recording a run end", true, () =>
      this.pool.query(`UPDATE ${this.schema}.runs SET status = $2, ended_at = $3, result = $4 WHERE run_id = $1`, [
        runId,
        end.status,
        end.endedAt,
        JSON.stringify(end.result),
      ]),
    );
  }

  async read(runId: string): Promise<JournaledRun | undefined> {
    // One snapshot for the three reads, so a run being written is read consistently.
    return withStoreRetry("reading a run", true, async () => {
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const run = await client.query<RunRow>(`SELECT * FROM ${this.schema}.runs WHERE run_id = $1`, [runId]);
        const turns = await client.query<TurnRow>(
          `SELECT turn, message, usage, finish_reason FROM ${this.schema}.run_turns WHERE run_id = $1 ORDER BY turn`,
          [runId],
        );
        const calls = await client.query<CallRow>(
          `SELECT call_id, tool, arguments, idempotency_key, outcome, formatted FROM ${this.schema}.run_calls
           WHERE run_id = $1 ORDER BY seq`,
          [runId],
        );
        await client.query("COMMIT");
        const row = run.rows[0];
        return row === undefined ? undefined : toRun(row, turns.rows, calls.rows);
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    });
  }
}

function toRun(row: RunRow, turns: readonly TurnRow[], calls: readonly CallRow[]): JournaledRun {
  return {
    runId: row.run_id,
    agent: row.agent,
    instructions: row.instructions,
    input: row.input,
    startedAt: row.started_at.toISOString(),
    turns: turns.map((t) => ({
      index: t.turn,
      message: t.message,
      ...(t.usage ? { usage: t.usage } : {}),
      ...(t.finish_reason === null ? {} : { finishReason: t.finish_reason }),
    })),
    calls: calls.map(
      (c): JournaledCall => ({
        callId: c.call_id,
        tool: c.tool,
        arguments: c.arguments,
        idempotencyKey: c.idempotency_key,
        ...(c.outcome === null
          ? {}
          : { outcome: { callId: c.call_id, outcome: c.outcome, formatted: c.formatted ?? "" } }),
      }),
    ),
    ...(row.ended_at === null
      ? {}
      : { end: { status: row.status ?? "", endedAt: row.ended_at.toISOString(), result: row.result ?? null } }),
  };
}
