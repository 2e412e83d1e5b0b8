/*
 * Why an inspector did not start, in words that say what to do: a busy port, a database that does not
 * exist or cannot be reached, a store never migrated. The command line prints the same.
 */
import { NeedleworkError } from "@needlework/core";

/**
 * The code of an {@link InspectorStartError}:
 * - `PORT_IN_USE`: another program listens on the port; pass another `port`, or `0` for any free one;
 * - `PORT_NOT_ALLOWED`: this process may not listen on the port (below 1024 without privileges);
 * - `DATABASE_NOT_FOUND`: the store's database does not exist (SQLSTATE `3D000`); create it or fix the URL;
 * - `DATABASE_UNREACHABLE`: the database's host is unknown or nothing listens at its address;
 * - `STORE_NOT_MIGRATED`: the store's tables do not exist yet; run the app's `await store.migrate()` once;
 * - `STORE_UNREADABLE`: the store refused to list runs for another reason (the cause is kept).
 */
export type InspectorStartErrorCode =
  | "PORT_IN_USE"
  | "PORT_NOT_ALLOWED"
  | "DATABASE_NOT_FOUND"
  | "DATABASE_UNREACHABLE"
  | "STORE_NOT_MIGRATED"
  | "STORE_UNREADABLE";

/**
 * Thrown by `startInspector()` when it cannot serve: the message says what to do, never quoting a
 * driver's message (it may hold the connection string's password); the error is its `cause`.
 *
 * @example
 * ```ts
 * try { await startInspector({ store, port: 4600 }); }
 * catch (e) { if (e instanceof InspectorStartError && e.code === "PORT_IN_USE") console.error(e.message); }
 * ```
 */
export class InspectorStartError extends NeedleworkError {
  declare readonly code: InspectorStartErrorCode;
  /** The port it tried, for `PORT_IN_USE` and `PORT_NOT_ALLOWED`. */
  declare readonly port?: number;

  constructor(code: InspectorStartErrorCode, message: string, options: { cause?: unknown; port?: number } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    if (options.port !== undefined) (this as { port?: number }).port = options.port;
  }
}

/** The `code` strings on an error and its causes, nearest first (at most eight deep). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 8 && typeof at === "object" && at !== null; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    // An AggregateError (a host with several addresses) holds its causes in `errors`.
    const inner = (at as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const e of inner) codes.push(...codesOf(e));
    at = (at as { cause?: unknown }).cause;
  }
  return codes;
}

/** A failure to listen on `port` as an {@link InspectorStartError}, or `undefined` for another failure. */
export function listenProblem(error: unknown, port: number): InspectorStartError | undefined {
  const codes = codesOf(error);
  if (codes.includes("EADDRINUSE"))
    return new InspectorStartError(
      "PORT_IN_USE",
      `startInspector: port ${port} is already in use (another inspector or program listens there). Pass another \`port\` (--port <n>), or 0 for any free one.`,
      { cause: error, port },
    );
  if (codes.includes("EACCES"))
    return new InspectorStartError(
      "PORT_NOT_ALLOWED",
      `startInspector: not allowed to listen on port ${port}. Pass a \`port\` (--port <n>) above 1023, or 0 for any free one.`,
      { cause: error, port },
    );
  return undefined;
}

/** A store that failed its first read, as an {@link InspectorStartError} that says what to do. */
export function storeProblem(error: unknown, schema = "needlework"): InspectorStartError {
  const codes = codesOf(error);
  if (codes.includes("STORE_NOT_MIGRATED"))
    return new InspectorStartError(
      "STORE_NOT_MIGRATED",
      `startInspector: the store's tables do not exist in schema "${schema}" (STORE_NOT_MIGRATED). Run your app's \`await store.migrate()\` once (or check the schema), then start the inspector again.`,
      { cause: error },
    );
  if (codes.includes("3D000"))
    return new InspectorStartError(
      "DATABASE_NOT_FOUND",
      "startInspector: the database the store connects to does not exist (DATABASE_NOT_FOUND). Create it (`createdb <name>`), or fix the database name in the connection string (--database-url).",
      { cause: error },
    );
  const network = ["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "EHOSTUNREACH", "ETIMEDOUT"].find((c) =>
    codes.includes(c),
  );
  if (network)
    return new InspectorStartError(
      "DATABASE_UNREACHABLE",
      network === "ENOTFOUND" || network === "EAI_AGAIN"
        ? `startInspector: the database's host could not be found (DATABASE_UNREACHABLE, ${network}). Check the host in the connection string (--database-url).`
        : `startInspector: nothing answers at the database's address (DATABASE_UNREACHABLE, ${network}). Check that PostgreSQL runs there, and the host and port in the connection string (--database-url).`,
      { cause: error },
    );
  const code = codes.find((c) => /^[A-Z][A-Z0-9_]*$/.test(c));
  return new InspectorStartError(
    "STORE_UNREADABLE",
    `startInspector: the store could not be read${code ? ` (${code})` : ""}. Check the connection string and that the schema exists (your app's store.migrate() creates it).`,
    { cause: error },
  );
}
