import type { FailureEffect, MappedError } from "./mapped-error.js";

interface SqlStateEntry {
  readonly code: string;
  readonly retriable: boolean;
  readonly message: string;
  readonly suggestion: string;
  readonly status?: "timeout";
  readonly effect?: FailureEffect;
}

const ROLLED_BACK: SqlStateEntry = {
  code: "TRANSACTION_CONFLICT",
  retriable: true,
  effect: "none",
  message: "The database rolled the transaction back because of a concurrent one",
  suggestion: "Retry the call.",
};
const RESOURCES: SqlStateEntry = {
  code: "UPSTREAM_UNAVAILABLE",
  retriable: true,
  effect: "none",
  message: "The database is out of resources",
  suggestion: "Retry later; if it keeps failing, report the outage.",
};
const SHUTDOWN: SqlStateEntry = {
  code: "UPSTREAM_UNAVAILABLE",
  retriable: true,
  effect: "unknown",
  message: "The database shut the connection down",
  suggestion: "Retry later; check first whether a change was applied.",
};
const CONNECTION: SqlStateEntry = {
  code: "NETWORK_ERROR",
  retriable: true,
  effect: "unknown",
  message: "The connection to the database failed",
  suggestion: "Retry later; check first whether a change was applied.",
};
const INVALID: SqlStateEntry = {
  code: "INVALID_REQUEST",
  retriable: false,
  message: "The database refused the values",
  suggestion: "Check the arguments and call again with corrected values.",
};
const DATABASE: SqlStateEntry = {
  code: "DATABASE_ERROR",
  retriable: false,
  message: "The database reported an error",
  suggestion: "Do not retry; report the failure.",
};

/** Exact SQLSTATEs first (a `Map`: no inherited key is ever read), then their two-character class. */
const EXACT: ReadonlyMap<string, SqlStateEntry> = new Map<string, SqlStateEntry>([
  ["40001", ROLLED_BACK],
  ["40P01", ROLLED_BACK],
  ["57P01", SHUTDOWN],
  ["57P02", SHUTDOWN],
  ["57P03", { ...RESOURCES, message: "The database is not accepting connections yet" }],
  [
    "57014",
    {
      code: "TIMEOUT",
      status: "timeout",
      retriable: true,
      effect: "none",
      message: "The database cancelled the statement (statement timeout)",
      suggestion: "Retry the call, perhaps with a narrower request.",
    },
  ],
  ["08001", { ...CONNECTION, effect: "none", message: "Could not connect to the database" }],
  ["08004", { ...CONNECTION, effect: "none", message: "The database refused the connection" }],
  [
    "23505",
    {
      code: "CONFLICT",
      retriable: false,
      message: "A record with the same unique value already exists",
      suggestion: "Read the existing record before deciding whether to retry.",
    },
  ],
  [
    "42501",
    {
      code: "FORBIDDEN",
      retriable: false,
      message: "The database denied permission",
      suggestion: "Do not retry; tell the user this action is not permitted.",
    },
  ],
]);

const BY_CLASS: ReadonlyMap<string, SqlStateEntry> = new Map<string, SqlStateEntry>([
  ["08", CONNECTION],
  ["22", INVALID],
  ["23", INVALID],
  [
    "28",
    {
      code: "UNAUTHORIZED",
      retriable: false,
      message: "The database refused the credentials",
      suggestion: "Do not retry; report that the integration needs new credentials.",
    },
  ],
  ["40", ROLLED_BACK],
  ["53", RESOURCES],
  ["57", SHUTDOWN],
]);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * A PostgreSQL error (node-postgres's `DatabaseError`, or any driver error carrying a SQLSTATE
 * `code` with the server's `severity`) mapped by its SQLSTATE: serialization failures and
 * deadlocks (40001, 40P01) `TRANSACTION_CONFLICT` retriable, out of resources (53xxx) and shutdowns
 * (57P01-57P03) `UPSTREAM_UNAVAILABLE` retriable, connection failures (08xxx) `NETWORK_ERROR`
 * retriable, unique violations (23505) `CONFLICT`, other integrity or data errors (23xxx, 22xxx)
 * `INVALID_REQUEST`, 28xxx `UNAUTHORIZED`, 42501 `FORBIDDEN`, anything else (42xxx syntax or a
 * missing table...) `DATABASE_ERROR`, not retriable. The message names the SQLSTATE, never the
 * server's text (which quotes the values). @internal
 *
 * @example
 * ```ts
 * mapSqlState({ code: "40001", severity: "ERROR" })?.code; // "TRANSACTION_CONFLICT"
 * ```
 */
export function mapSqlState(candidate: unknown): MappedError | undefined {
  if (typeof candidate !== "object" || candidate === null) return undefined;
  const { code, severity } = candidate as { code?: unknown; severity?: unknown };
  if (typeof code !== "string" || !SQLSTATE.test(code) || typeof severity !== "string") return undefined;
  const entry = EXACT.get(code) ?? BY_CLASS.get(code.slice(0, 2)) ?? DATABASE;
  return {
    status: entry.status ?? "error",
    code: entry.code,
    retriable: entry.retriable,
    message: `${entry.message} (SQLSTATE ${code}).`,
    suggestion: entry.suggestion,
    ...(entry.effect === undefined ? {} : { effect: entry.effect }),
  };
}
