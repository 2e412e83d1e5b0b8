/*
 * Where the inspector journals what people did from its page (approve, deny, resume, replay,
 * acknowledge), with who and when, beside the store it reads: a table `inspector_actions` in a
 * PostgresStore's schema, a file `inspector-actions.jsonl` in a FileRunStore's folder, or memory.
 * The run journal's contract has no record for a person's action, so the inspector keeps its own.
 */
import { randomUUID } from "node:crypto";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentStore } from "@needlework/durable";
import type { ActionRecord } from "./run-view.js";

/**
 * Where the inspector's actions are journaled. Pass your own as `startInspector({ actions })`;
 * by default it is chosen by the store (PostgreSQL table, FileRunStore file, or memory).
 *
 * @example
 * ```ts
 * const records: ActionRecord[] = [];
 * const actions: ActionLog = {
 *   append: async (record) => void records.push(record),
 *   list: async ({ runId }) => records.filter((r) => r.runId === runId),
 * };
 * ```
 */
export interface ActionLog {
  /** Durable when it resolves. */
  append(record: ActionRecord): Promise<void>;
  /** The records of one run (or one dead letter), oldest first. */
  list(query: { readonly runId?: string; readonly letterId?: string }): Promise<readonly ActionRecord[]>;
}

/** A record about to be written: the id and time are added. */
export type NewAction = Omit<ActionRecord, "id" | "at">;

export function newRecord(action: NewAction): ActionRecord {
  return { ...action, id: randomUUID(), at: new Date().toISOString() };
}

const matches = (record: ActionRecord, query: { runId?: string; letterId?: string }): boolean =>
  (query.runId === undefined || record.runId === query.runId) &&
  (query.letterId === undefined || record.letterId === query.letterId);

function memoryLog(): ActionLog {
  const records: ActionRecord[] = [];
  return {
    append: async (record) => void records.push(record),
    list: async (query) => records.filter((r) => matches(r, query)),
  };
}

const isRecord = (value: unknown): value is ActionRecord =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as ActionRecord).action === "string" &&
  typeof (value as ActionRecord).at === "string";

function fileLog(directory: string): ActionLog {
  const path = join(directory, "inspector-actions.jsonl");
  return {
    append: (record) => appendFile(path, `${JSON.stringify(record)}\n`, { flush: true }),
    async list(query) {
      let text = "";
      try {
        text = await readFile(path, "utf8");
      } catch {
        return [];
      }
      const records: ActionRecord[] = [];
      for (const line of text.split("\n")) {
        if (line === "") continue;
        try {
          const record = JSON.parse(line) as unknown;
          if (isRecord(record) && matches(record, query)) records.push(record);
        } catch {
          // a torn last line (a crash mid-append): skipped
        }
      }
      return records;
    },
  };
}

interface Queryable {
  query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

async function postgresLog(pool: Queryable, schema: string): Promise<ActionLog> {
  const table = `"${schema.replaceAll('"', '""')}".inspector_actions`;
  // A run's view and a letter's view read their actions by id, in order: an index each, so a view
  // does not scan every action ever taken.
  for (const ddl of [
    `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, run_id text, letter_id text, record jsonb NOT NULL, at timestamptz NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS inspector_actions_run ON ${table} (run_id, at, id)`,
    `CREATE INDEX IF NOT EXISTS inspector_actions_letter ON ${table} (letter_id, at, id)`,
  ])
    await pool.query(ddl).catch(madeMeanwhile);
  return {
    async append(record) {
      await pool.query(`INSERT INTO ${table} (id, run_id, letter_id, record, at) VALUES ($1, $2, $3, $4, $5)`, [
        record.id,
        record.runId ?? null,
        record.letterId ?? null,
        JSON.stringify(record),
        record.at,
      ]);
    },
    async list(query) {
      const { rows } = await pool.query(
        `SELECT record FROM ${table} WHERE ($1::text IS NULL OR run_id = $1) AND ($2::text IS NULL OR letter_id = $2) ORDER BY at, id LIMIT 1000`,
        [query.runId ?? null, query.letterId ?? null],
      );
      return rows.map((row) => row.record).filter(isRecord);
    },
  };
}

/**
 * `IF NOT EXISTS` is not atomic: a second inspector starting at the same moment can fail to create
 * what the first just made (a unique violation on the catalog, or "already exists"). That is the
 * table or index we wanted; anything else is thrown.
 */
function madeMeanwhile(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "23505" && code !== "42P07") throw error;
}

/** The default log for a store: its PostgreSQL schema, its FileRunStore folder, or memory. */
export async function defaultActionLog(store: AgentStore): Promise<ActionLog> {
  const own = store as unknown as Record<string, unknown>;
  const pool = Object.hasOwn(own, "pool") ? own.pool : undefined;
  const schema = Object.hasOwn(own, "schema") ? own.schema : undefined;
  if (typeof (pool as Queryable | undefined)?.query === "function" && typeof schema === "string")
    return postgresLog(pool as Queryable, schema);
  const directory = Object.hasOwn(own, "directory") ? own.directory : undefined;
  if (typeof directory === "string") return fileLog(directory);
  return memoryLog();
}
