// `PostgresRunJournal.read`: a run with its turns and calls in one statement (one round trip on
// the pool, no transaction: one statement reads one snapshot), its turns and calls aggregated as
// JSON text in turn and start order; `takeAndRead` reads its row the same way. Split from
// postgres-run-journal.ts (the class).
import type { JournaledRun } from "@needlework/durable";
import { type NamedStatement, type NamedStatements, namedStatement } from "./named-statements.js";
import { type CallRow, type RunRow, type TurnRow, toRun } from "./postgres-journal-rows.js";

/**
 * The run row, its result, turns and calls as JSON text: parsed here once each, and their strings
 * unescaped only when one of them holds the escape character (U+E000; PostgreSQL writes it raw in
 * JSON text), instead of copying every value to look.
 */
export function runReadStatement(schema: string): NamedStatement {
  return namedStatement(
    `SELECT r.run_id, r.agent, r.instructions, r.input, r.started_at, r.status, r.ended_at, r.result::text AS result,
       (SELECT coalesce(json_agg(json_build_object('turn', t.turn, 'message', t.message, 'usage', t.usage,
          'finish_reason', t.finish_reason) ORDER BY t.turn), '[]'::json)::text
        FROM ${schema}.run_turns t WHERE t.run_id = $1) AS turns,
       (SELECT coalesce(json_agg(json_build_object('call_id', c.call_id, 'tool', c.tool, 'arguments', c.arguments,
          'idempotency_key', c.idempotency_key, 'approval', c.approval, 'outcome', c.outcome, 'formatted', c.formatted)
          ORDER BY c.seq), '[]'::json)::text
        FROM ${schema}.run_calls c WHERE c.run_id = $1) AS calls
     FROM ${schema}.runs r WHERE r.run_id = $1`,
  );
}

/** The row of {@link runReadStatement}: the JSON columns as text. @internal */
export interface ReadRow extends Omit<RunRow, "result"> {
  result: string | null;
  turns: string;
  calls: string;
}

/** The escape character, raw or as a JSON escape: a value holding neither has nothing to unescape. */
const MAY_BE_ESCAPED = /\uE000|\\u[eE]000/;

/** The run of a row whose result, turns and calls are JSON text (see {@link runReadStatement}). @internal */
export function runOfText(row: ReadRow): JournaledRun {
  const escaped =
    MAY_BE_ESCAPED.test(row.turns) || MAY_BE_ESCAPED.test(row.calls) || MAY_BE_ESCAPED.test(row.result ?? "");
  return toRun(
    { ...row, result: row.result === null ? null : (JSON.parse(row.result) as RunRow["result"]) },
    JSON.parse(row.turns) as TurnRow[],
    JSON.parse(row.calls) as CallRow[],
    escaped,
  );
}

/** The run `runId` as written, or `undefined` when the journal has no such run. @internal */
export async function readRun(
  hot: NamedStatements,
  statement: NamedStatement,
  runId: string,
): Promise<JournaledRun | undefined> {
  const { rows } = await hot.query<ReadRow>(statement, [runId]);
  const row = rows[0];
  return row === undefined ? undefined : runOfText(row);
}
