import {
  type AgentStore,
  DEFAULT_LEASE_MS,
  type PayloadCodec,
  type RunDeletion,
  type RunJournal,
} from "@needlework/durable";
import { codecJournal, payloadCodecOption } from "@needlework/durable";
import { ownProperties as ownOptions, parseOptions } from "@needlework/core/kit";
import pg from "pg";
import { z } from "zod";
import { applyMigrations } from "./migrations.js";
import { PostgresCheckpointClaims } from "./postgres-checkpoint-claims.js";
import { PostgresDeadLetterQueue } from "./postgres-dead-letter-queue.js";
import { PostgresRunJournal } from "./postgres-run-journal.js";
import { PostgresArtifactStore } from "./postgres-artifact-store.js";
import { deletePostgresRun } from "./postgres-run-deletion.js";
import { quotedSchema } from "./schema-name.js";
import { withStoreRetry } from "./store-errors.js";

/**
 * Options of {@link PostgresStore}.
 *
 * @example
 * ```ts
 * const options: PostgresStoreOptions = { connectionString: process.env.DATABASE_URL, schema: "needlework" };
 * ```
 */
export interface PostgresStoreOptions {
  /** A `postgres://` URL; ignored when `pool` is given. Default `process.env.DATABASE_URL`. */
  readonly connectionString?: string | undefined;
  /** A pool you own (the store never ends it). */
  readonly pool?: pg.Pool;
  /** The schema holding the store's tables. Default `needlework`. */
  readonly schema?: string;
  /** Connections of the pool the store creates. Default 10. */
  readonly maxConnections?: number;
  /**
   * How long a run's lease lasts without renewal, in ms. A live run renews it at a third of this; a
   * process that died loses its runs' leases after this long, and `resumeRun` elsewhere can go on.
   * Default 30 000.
   */
  readonly leaseMs?: number;
  /**
   * Encodes every payload the store writes (`aesGcmCodec(key)` from `@needlework/workflows`): input,
   * instructions, messages, tool arguments, outcomes, formatted text, results and dead-letter entries.
   * Ids, agent and tool names, statuses, error codes and times stay readable columns. Rows written
   * without a codec stay readable after one is configured. Sealed values are bound to the schema's
   * name: a value moved to another schema that shares the key does not open.
   */
  readonly codec?: PayloadCodec;
}

const optionsSchema = z.strictObject({
  connectionString: z.string().min(1).optional(),
  pool: z
    .custom<pg.Pool>((value) => typeof (value as { query?: unknown } | null)?.query === "function", "must be a pg Pool")
    .optional(),
  schema: z.string().optional(),
  maxConnections: z.int().min(1).max(1000).optional(),
  leaseMs: z.int().min(1).optional(),
  codec: payloadCodecOption.optional(),
});

/**
 * Durable state for agents on PostgreSQL: the run journal (`createAgent({ store })` and
 * `agent.resumeRun(runId)`, and a checkpoint resumed once across instances) and dead letters (list,
 * filter, acknowledge, replay), shared by every instance using the same database and schema. Call
 * `await store.migrate()` once per process before use (safe from several at once).
 *
 * @example
 * ```ts
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export class PostgresStore implements AgentStore {
  readonly journal: RunJournal;
  readonly deadLetters: PostgresDeadLetterQueue;
  /** @deprecated Agents no longer read it: the run journal makes a checkpoint resume once (see {@link PostgresCheckpointClaims}). */
  readonly resumedCheckpoints: PostgresCheckpointClaims;
  /**
   * Results too large for the model (`usingArtifacts({ store: store.artifacts })`), sealed with the
   * store's codec and deleted with their run.
   */
  readonly artifacts: PostgresArtifactStore;
  /** The schema name, unquoted. */
  readonly schema: string;
  /** The pool the store queries through. */
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly quoted: string;

  constructor(options: PostgresStoreOptions = {}) {
    // Own properties only: a key inherited from a polluted Object.prototype is no option.
    const parsed = ownOptions(parseOptions("PostgresStore", optionsSchema, ownOptions(options)));
    this.schema = parsed.schema ?? "needlework";
    this.quoted = quotedSchema("PostgresStore", this.schema);
    const connectionString = parsed.connectionString ?? process.env["DATABASE_URL"];
    if (parsed.pool === undefined && connectionString === undefined) {
      throw new TypeError("PostgresStore: pass { connectionString } or { pool }, or set DATABASE_URL.");
    }
    this.ownsPool = parsed.pool === undefined;
    this.pool = parsed.pool ?? new pg.Pool({ connectionString, max: parsed.maxConnections ?? 10 });
    // An idle client whose server went away must not crash the process; the next query reports it.
    if (this.ownsPool) this.pool.on("error", () => undefined);
    const journal = new PostgresRunJournal(this.pool, this.quoted, parsed.leaseMs ?? DEFAULT_LEASE_MS);
    // Sealed values are bound to the store: its schema's name (`postgres:<schema>`).
    const store = `postgres:${this.schema}`;
    this.journal = parsed.codec === undefined ? journal : codecJournal(journal, parsed.codec, { store });
    this.deadLetters = new PostgresDeadLetterQueue(this.pool, this.quoted, parsed.codec, store);
    this.resumedCheckpoints = new PostgresCheckpointClaims(this.pool, this.quoted);
    this.artifacts = new PostgresArtifactStore(this.pool, this.quoted, parsed.codec, `postgres:${this.schema}`);
  }

  /**
   * The identity sealed values are bound to: `postgres:` and the schema's name. A value moved to
   * another schema that shares the key does not open (so restore a dump into a schema of the same
   * name).
   *
   * @example
   * ```ts
   * console.log(await store.storeId()); // postgres:needlework
   * ```
   */
  async storeId(): Promise<string> {
    return `postgres:${this.schema}`;
  }

  /**
   * Deletes a run in one transaction: its journal (turns and calls) and its artifacts. A run a live
   * process holds is refused (`RUN_BUSY`). Deleting the `runs` row any other way deletes its
   * artifacts too (a trigger).
   *
   * @example
   * ```ts
   * const { run, artifacts } = await store.deleteRun("run_1");
   * ```
   */
  deleteRun(runId: string): Promise<RunDeletion> {
    return deletePostgresRun(this.pool, this.quoted, runId);
  }

  /**
   * Creates or upgrades the store's tables: versioned (table `migrations`), idempotent, and
   * serialized across instances by `pg_advisory_xact_lock`. Resolves with the versions it applied.
   */
  migrate(): Promise<number[]> {
    return withStoreRetry("migrating", true, () =>
      applyMigrations(this.pool, this.quoted, `needlework:${this.schema}`),
    );
  }

  /** Ends the pool the store created (a `pool` you passed stays open). */
  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
