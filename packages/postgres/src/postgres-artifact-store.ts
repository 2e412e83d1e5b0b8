import {
  ARTIFACT_NAMESPACE,
  type ArtifactInfo,
  type ArtifactStore,
  type ArtifactWrite,
  artifactId,
  checkArtifactRunId,
  checkArtifactWrite,
  isArtifactId,
  type PayloadCodec,
  type PayloadContext,
  RunStoreError,
  type StoredArtifact,
} from "@needlework/durable";
import type { JsonValue } from "@needlework/core";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

interface ArtifactRow {
  run_id: string;
  artifact_id: string;
  bytes: string;
  items: string;
  media_type: string;
  provenance: string | null;
  sealed: boolean;
  schema: string;
  created_at: Date;
  content?: string;
}

const INFO_COLUMNS = "run_id, artifact_id, bytes, items, media_type, provenance, sealed, schema, created_at";

/**
 * Artifacts in PostgreSQL (table `artifacts`): `store.artifacts` of a `PostgresStore`, shared by every
 * instance on the database. With the store's codec, content and schema are sealed, bound to the
 * run, the artifact and the store's schema: a row moved to another run (or copied to another
 * store) does not open. Deleting a run's `runs` row deletes its artifacts (a trigger).
 *
 * @example
 * ```ts
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate();
 * usingAgentFramework().addAgentFunctions(ReportTools).usingToolResultMiddleware().usingRedaction()
 *   .usingArtifacts({ store: store.artifacts });
 * ```
 */
export class PostgresArtifactStore implements ArtifactStore {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly codec: PayloadCodec | undefined,
    /** The store's identity in sealed values' associated data (its schema name). */
    private readonly storeName: string,
  ) {}

  async put(artifact: ArtifactWrite): Promise<ArtifactInfo> {
    const { runId, content, items, schema, mediaType, provenance } = checkArtifactWrite(
      "PostgresArtifactStore",
      artifact,
    );
    const id = artifactId(content);
    const bytes = Buffer.byteLength(content, "utf8");
    const sealed = this.codec !== undefined;
    const schemaText = JSON.stringify(schema);
    const row = [
      runId,
      id,
      bytes,
      items,
      mediaType,
      provenance.provenance ?? null,
      sealed,
      sealed ? await this.codec!.encode(schemaText, this.at(runId, id, "artifact-schema")) : schemaText,
      sealed ? await this.codec!.encode(content, this.at(runId, id, "artifact")) : content,
    ];
    // Idempotent: the same content in the same run is the same row, stored once.
    await withStoreRetry("storing an artifact", true, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.artifacts (run_id, artifact_id, bytes, items, media_type, provenance, sealed, schema, content)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (run_id, artifact_id) DO NOTHING`,
        row,
      ),
    );
    const { rows } = await withStoreRetry("reading an artifact", true, () =>
      this.pool.query<ArtifactRow>(
        `SELECT ${INFO_COLUMNS} FROM ${this.schema}.artifacts WHERE run_id = $1 AND artifact_id = $2`,
        [runId, id],
      ),
    );
    if (rows[0] === undefined)
      throw new RunStoreError("STORE_FAILED", "PostgresArtifactStore: a stored artifact could not be read back.");
    return this.infoOf(rows[0]);
  }

  async get(runId: string, id: string): Promise<StoredArtifact | undefined> {
    checkArtifactRunId("PostgresArtifactStore", runId);
    if (!isArtifactId(id)) return undefined;
    const { rows } = await withStoreRetry("reading an artifact", true, () =>
      this.pool.query<ArtifactRow>(
        `SELECT ${INFO_COLUMNS}, content FROM ${this.schema}.artifacts WHERE run_id = $1 AND artifact_id = $2`,
        [runId, id],
      ),
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const info = await this.infoOf(row);
    const content = row.sealed ? await this.open(row.content ?? "", runId, id, "artifact") : (row.content ?? "");
    return { ...info, content };
  }

  async list(runId: string): Promise<readonly ArtifactInfo[]> {
    checkArtifactRunId("PostgresArtifactStore", runId);
    const { rows } = await withStoreRetry("listing artifacts", true, () =>
      this.pool.query<ArtifactRow>(
        `SELECT ${INFO_COLUMNS} FROM ${this.schema}.artifacts WHERE run_id = $1 ORDER BY created_at, artifact_id`,
        [runId],
      ),
    );
    return Promise.all(rows.map((row) => this.infoOf(row)));
  }

  async deleteRun(runId: string): Promise<number> {
    checkArtifactRunId("PostgresArtifactStore", runId);
    const { rowCount } = await withStoreRetry("deleting a run's artifacts", true, () =>
      this.pool.query(`DELETE FROM ${this.schema}.artifacts WHERE run_id = $1`, [runId]),
    );
    return rowCount ?? 0;
  }

  private async infoOf(row: ArtifactRow): Promise<ArtifactInfo> {
    if (this.codec !== undefined && !row.sealed)
      throw new RunStoreError(
        "PAYLOAD_UNSEALED",
        `PostgresArtifactStore: the store has a codec, but an artifact of run '${row.run_id}' is stored in clear, where a sealed one belongs. It is not read.`,
      );
    const schemaText = row.sealed
      ? await this.open(row.schema, row.run_id, row.artifact_id, "artifact-schema")
      : row.schema;
    let schema: JsonValue;
    try {
      schema = JSON.parse(schemaText) as JsonValue;
    } catch {
      throw new RunStoreError("PAYLOAD_UNREADABLE", "PostgresArtifactStore: an artifact's schema is not JSON.");
    }
    return {
      id: row.artifact_id,
      runId: row.run_id,
      bytes: Number(row.bytes),
      items: Number(row.items),
      schema,
      mediaType: row.media_type,
      ...(row.provenance === "untrusted" ? { provenance: "untrusted" as const } : {}),
      createdAt: row.created_at.toISOString(),
    };
  }

  private async open(sealed: string, runId: string, id: string, kind: string): Promise<string> {
    if (this.codec === undefined)
      throw new RunStoreError(
        "PAYLOAD_UNREADABLE",
        "PostgresArtifactStore: an artifact is sealed, and this store has no codec to open it: pass the store's { codec }.",
      );
    return this.codec.decode(sealed, this.at(runId, id, kind));
  }

  private at(runId: string, id: string, kind: string): PayloadContext {
    return { namespace: ARTIFACT_NAMESPACE, runId, kind, ref: `${this.storeName}/${id}`, store: this.storeName };
  }
}
