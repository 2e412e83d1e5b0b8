// The SQL and rows of the PostgreSQL run journal: statement fragments, the rows a write sends
// and the rows a read gets back, as JournaledRun. Split from postgres-run-journal.ts (the class).
import type {
  ApprovalRecord,
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledTurn,
} from "@needlework/durable";
import { unescapeJson as unescapeStoredJson, unescapeText } from "./stored-text.js";

/** A row of the journal as `pg` returns it. @internal */
export interface RunRow {
  run_id: string;
  agent: string;
  instructions: string;
  input: string;
  started_at: Date;
  status: string | null;
  ended_at: Date | null;
  result: JournaledRunEnd["result"] | null;
}
/** A row of the journal as `pg` returns it. @internal */
export interface TurnRow {
  turn: number;
  message: JournaledTurn["message"];
  usage: JournaledTurn["usage"] | null;
  finish_reason: string | null;
}
/** A row of the journal as `pg` returns it. @internal */
export interface CallRow {
  call_id: string;
  tool: string;
  arguments: JournaledCallStart["arguments"];
  idempotency_key: string;
  approval: ApprovalRecord | null;
  outcome: JournaledOutcome["outcome"] | null;
  formatted: string | null;
}

/**
 * `lease_expires` of an ended run: it has no holder (no write, renewal or release by its last owner
 * lands), and anyone may take it (an approval's continuation, under a new epoch).
 */
export const ENDED = `'-infinity'::timestamptz`;
/** The run's lease is not ended: its owner may write, renew and release it. */
export const HELD = `lease_expires IS DISTINCT FROM ${ENDED}`;

/** How long the run's current lease has left, in ms (0: none, or expired): what `RUN_BUSY` carries. */
export const BUSY_MS = `CASE WHEN lease_owner IS NULL OR lease_expires IS NULL OR lease_expires <= now() THEN 0
  ELSE ceil(extract(epoch FROM lease_expires - now()) * 1000)::int END`;

/** Turns from a JSON array of {@link turnRow}s, off the `lease` row (fenced: none without it). */
export function turnsInsert(schema: string, rows: string): string {
  return `INSERT INTO ${schema}.run_turns (run_id, turn, message, usage, finish_reason)
    SELECT lease.run_id, t.turn, t.message, t.usage, t.finish_reason
    FROM lease, jsonb_to_recordset(${rows}::jsonb) AS t(turn int, message jsonb, usage jsonb, finish_reason text)
    ON CONFLICT (run_id, turn) DO UPDATE
    SET message = EXCLUDED.message, usage = EXCLUDED.usage, finish_reason = EXCLUDED.finish_reason`;
}

/** Call starts from a JSON array of {@link callRow}s, in order; a call already recorded is kept. */
export function callsInsert(schema: string, rows: string): string {
  return `INSERT INTO ${schema}.run_calls (run_id, call_id, tool, arguments, idempotency_key, approval)
    SELECT lease.run_id, c.call_id, c.tool, c.arguments, c.idempotency_key, c.approval
    FROM lease, ROWS FROM (jsonb_to_recordset(${rows}::jsonb) AS (call_id text, tool text, arguments jsonb, idempotency_key text, approval jsonb))
      WITH ORDINALITY AS c(call_id, tool, arguments, idempotency_key, approval, n)
    ORDER BY n
    ON CONFLICT (run_id, call_id) DO NOTHING`;
}

/** Outcomes from a JSON array of {@link outcomeRows}, in order. */
export function outcomesInsert(schema: string, rows: string): string {
  return `INSERT INTO ${schema}.run_calls (run_id, call_id, tool, idempotency_key, outcome, formatted, settled_at)
    SELECT lease.run_id, o.call_id, o.tool, o.idempotency_key, o.outcome, o.formatted, now()
    FROM lease, ROWS FROM (
      jsonb_to_recordset(${rows}::jsonb) AS (call_id text, tool text, idempotency_key text, outcome jsonb, formatted text)
    ) WITH ORDINALITY AS o(call_id, tool, idempotency_key, outcome, formatted, n)
    ORDER BY n
    ON CONFLICT (run_id, call_id) DO UPDATE
    SET outcome = EXCLUDED.outcome, formatted = EXCLUDED.formatted, settled_at = EXCLUDED.settled_at`;
}

export function turnRow(turn: JournaledTurn): Record<string, unknown> {
  // A key left out is SQL NULL (jsonParam escapes every string once).
  return {
    turn: turn.index,
    message: turn.message,
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(turn.finishReason === undefined ? {} : { finish_reason: turn.finishReason }),
  };
}

export function callRow(c: JournaledCallStart): Record<string, unknown> {
  return {
    call_id: c.callId,
    tool: c.tool,
    // As given: jsonParam escapes its strings (unescaping them first turned a U+E000 and four hex
    // digits of an argument into another character).
    arguments: c.arguments,
    idempotency_key: c.idempotencyKey,
    approval: c.approval === undefined ? null : { decision: c.approval.decision, signature: c.approval.signature },
  };
}

export function outcomeRows(outcomes: readonly JournaledOutcome[]): Record<string, unknown>[] {
  return outcomes.map((o) => ({
    call_id: o.callId,
    tool: String(o.outcome.metadata["tool"] ?? ""),
    // A record written before outcomes carried their key (a format-2 checkpoint's) has it in its metadata.
    idempotency_key: o.idempotencyKey ?? String(o.outcome.metadata["idempotencyKey"] ?? ""),
    outcome: o.outcome,
    formatted: o.formatted,
  }));
}

export interface SummaryRow {
  run_id: string;
  agent: string;
  started_at: Date;
  status: string | null;
  ended_at: Date | null;
}

/**
 * The run of the journal's rows. `escaped: false` says no string of the JSON values holds the escape
 * character (the caller looked at their text): they are taken as parsed, not copied to unescape.
 */
export function toRun(row: RunRow, turns: readonly TurnRow[], calls: readonly CallRow[], escaped = true): JournaledRun {
  const unescapeJson: <T>(value: T) => T = escaped ? unescapeStoredJson : (value) => value;
  return {
    runId: row.run_id,
    agent: row.agent,
    instructions: unescapeText(row.instructions),
    input: unescapeText(row.input),
    startedAt: row.started_at.toISOString(),
    turns: turns.map((t) => ({
      index: t.turn,
      message: unescapeJson(t.message),
      ...(t.usage ? { usage: t.usage } : {}),
      ...(t.finish_reason === null ? {} : { finishReason: unescapeText(t.finish_reason) }),
    })),
    calls: calls.map(
      (c): JournaledCall => ({
        callId: c.call_id,
        tool: c.tool,
        arguments: unescapeJson(c.arguments),
        idempotencyKey: c.idempotency_key,
        ...(c.approval === null || c.approval === undefined ? {} : { approval: c.approval }),
        ...(c.outcome === null
          ? {}
          : {
              outcome: {
                callId: c.call_id,
                idempotencyKey: c.idempotency_key,
                outcome: unescapeJson(c.outcome),
                formatted: unescapeText(c.formatted ?? ""),
              },
            }),
      }),
    ),
    ...(row.ended_at === null
      ? {}
      : {
          end: {
            status: row.status ?? "",
            endedAt: row.ended_at.toISOString(),
            result: unescapeJson(row.result ?? null),
          },
        }),
  };
}
