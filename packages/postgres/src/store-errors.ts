import { RunStoreError } from "@needlework/durable";
import { ExponentialBackoff, handleWhen, type IBackoffFactory, type IRetryBackoffContext, retry } from "cockatiel";

/** Attempts of one statement (the first and its retries). @internal */
export const STORE_ATTEMPTS = 3;
const STORE_BACKOFF = new ExponentialBackoff({ initialDelay: 50, maxDelay: 1_000 });

/** Errors where the statement never reached the server (or was rolled back whole): always safe to retry. */
const NEVER_APPLIED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P03",
  "53300",
  "08001",
  "08004",
  "40001",
  "40P01",
]);
/** The connection broke while a statement ran: it may have committed, so only idempotent statements are retried. */
const MAYBE_APPLIED = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "08000", "08003", "08006"]);
const CONFLICTS = new Set(["40001", "40P01"]);
/** undefined_table, invalid_schema_name: the schema was never migrated. */
const NOT_MIGRATED = new Set(["42P01", "3F000"]);

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  // node-postgres reports a connection closed under it with this message and no code.
  return error instanceof Error && /Connection terminated/i.test(error.message) ? "08006" : "";
}

/**
 * Runs one store statement with retries where safe, and turns connection failures and
 * serialization conflicts that outlast them into {@link RunStoreError}s (`STORE_UNAVAILABLE`,
 * `STORE_CONFLICT`); any other driver error into `STORE_FAILED` with its SQLSTATE, so no caller ever
 * gets the driver's own error.
 * @internal
 */
export async function withStoreRetry<T>(
  what: string,
  idempotent: boolean,
  statement: () => Promise<T>,
  backoff: IBackoffFactory<IRetryBackoffContext<unknown>> = STORE_BACKOFF,
): Promise<T> {
  const retriable = (error: Error): boolean =>
    NEVER_APPLIED.has(codeOf(error)) || (idempotent && MAYBE_APPLIED.has(codeOf(error)));
  const policy = retry(handleWhen(retriable), { maxAttempts: STORE_ATTEMPTS - 1, backoff });
  try {
    return await policy.execute(statement);
  } catch (error) {
    const code = codeOf(error);
    if (CONFLICTS.has(code)) {
      throw new RunStoreError(
        "STORE_CONFLICT",
        `PostgresStore: ${what} conflicted with a concurrent transaction (SQLSTATE ${code}) ` +
          "and still did after retries; try again.",
        { cause: error },
      );
    }
    if (NEVER_APPLIED.has(code) || MAYBE_APPLIED.has(code)) {
      throw new RunStoreError(
        "STORE_UNAVAILABLE",
        `PostgresStore: ${what} failed: the database could not be reached (${code}). ` +
          "Check DATABASE_URL and that the server is up.",
        { cause: error },
      );
    }
    if (NOT_MIGRATED.has(code)) {
      throw new RunStoreError(
        "STORE_NOT_MIGRATED",
        `PostgresStore: ${what} failed: the store's tables do not exist (SQLSTATE ${code}). ` +
          "Run `await store.migrate()` once (at your app's start) before using the store.",
        { cause: error },
      );
    }
    if (RunStoreError.isInstance(error)) throw error;
    // Any other driver error: its SQLSTATE, never its message (which may quote the data it refused).
    throw new RunStoreError(
      "STORE_FAILED",
      `PostgresStore: ${what} failed (SQLSTATE ${code || "unknown"}). The error is kept as this error's cause.`,
      { cause: error },
    );
  }
}
