// The journal's hot statements (a commit, a take-and-read: every run sends them; a read) go to the
// server as named prepared statements, so each connection parses and plans them once instead of on
// every call. Measured on the durable-runs loop (same session, alternating blocks against the build
// that sent them unnamed): the server's CPU per run 0.89-0.90× (its backend's /proc time).
//
// A pooler that does not keep prepared statements per client (PgBouncer before 1.21 in transaction
// mode, or with `max_prepared_statements = 0`) hands a statement prepared on one server connection
// to another: the server refuses it (26000, or 42P05 when the name is taken there) before running
// anything, and the store sends these statements unnamed from then on, the refused one again.
import { createHash } from "node:crypto";
import type { Pool, QueryResult, QueryResultRow } from "pg";

/**
 * SQLSTATEs with which the server refuses a named statement before it runs: no such prepared
 * statement (26000), the name taken on that connection (42P05), and a prepared plan whose result
 * type changed under it, e.g. a function replaced by a newer migration (0A000). A statement that fails
 * commits nothing, so sending it again unnamed never writes twice.
 */
const REFUSED = new Set(["26000", "42P05", "0A000"]);

/** A statement and the name it is prepared under: derived from its text, so one text, one name. @internal */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** `text` with its name (`needlework_` and 24 hex digits of its SHA-256: within PostgreSQL's 63 bytes). @internal */
export function namedStatement(text: string): NamedStatement {
  return { name: `needlework_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`, text };
}

/**
 * Sends statements named while the server keeps them, unnamed once it (or a pooler in front of it)
 * has refused one. @internal
 */
export class NamedStatements {
  private named = true;

  constructor(private readonly pool: Pool) {}

  /** Whether statements still go named (false after a refusal). */
  get preparing(): boolean {
    return this.named;
  }

  async query<R extends QueryResultRow>(statement: NamedStatement, values: unknown[]): Promise<QueryResult<R>> {
    if (this.named) {
      try {
        return await this.pool.query<R>({ name: statement.name, text: statement.text, values });
      } catch (error) {
        if (!REFUSED.has(String((error as { code?: unknown } | null)?.code))) throw error;
        this.named = false;
      }
    }
    return this.pool.query<R>(statement.text, values);
  }
}
