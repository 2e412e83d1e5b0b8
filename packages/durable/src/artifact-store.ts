import { createHash } from "node:crypto";
import { type ArtifactReference, type JsonValue, NeedleworkError } from "@needlework/core";

/**
 * An artifact to store: a tool result too large for the model, as the JSON text of its (redacted)
 * value, with what the model is told about it.
 *
 * @example
 * ```ts
 * const content = JSON.stringify(rows);
 * const info = await store.put({ runId: "run_1", content, items: rows.length, schema: { type: "array" } });
 * ```
 */
export interface ArtifactWrite {
  /** The run the artifact belongs to: only that run reads it, and deleting the run deletes it. */
  readonly runId: string;
  /** The stored bytes: JSON text (UTF-8). */
  readonly content: string;
  /** The items `read_artifact` pages through at the root (a list's length, an object's members, else 1). */
  readonly items: number;
  /** The value's shape (a bounded JSON Schema) the model reads with the reference. */
  readonly schema: JsonValue;
  /** The content's media type. Default `application/json`. */
  readonly mediaType?: string;
  /**
   * `"untrusted"` when the content came from a tool declared `reads: "untrusted"` (text a third
   * party wrote): every page read from it carries the mark, so the run's injection policy sees it.
   */
  readonly provenance?: "untrusted";
}

/**
 * A stored artifact's facts (no content): its reference, its run, its media type and when it was
 * first stored.
 *
 * @example
 * ```ts
 * for (const info of await store.list("run_1")) console.log(info.id, info.bytes);
 * ```
 */
export interface ArtifactInfo extends ArtifactReference {
  readonly runId: string;
  readonly mediaType: string;
  /** `"untrusted"`: third-party text (see {@link ArtifactWrite.provenance}); absent otherwise. */
  readonly provenance?: "untrusted";
  /** ISO 8601. */
  readonly createdAt: string;
}

/**
 * A stored artifact with its content.
 *
 * @example
 * ```ts
 * const artifact = await store.get("run_1", id);
 * if (artifact) JSON.parse(artifact.content);
 * ```
 */
export interface StoredArtifact extends ArtifactInfo {
  readonly content: string;
}

/**
 * Where `usingArtifacts()` keeps results too large for the model. Artifacts are content-addressed
 * (the id is the sha256 of the content, {@link artifactId}) and scoped to their run: `get` answers
 * only the run that stored it, and `deleteRun` deletes all of a run's. Implemented by
 * `InMemoryArtifactStore`, `FileArtifactStore`, a `PostgresStore`'s `artifacts`; an S3-style store
 * implements these four methods and proves itself with `artifactStoreContract()` from
 * `@needlework/durable/testing`. A store with a codec seals the content and schema, bound to the
 * run, the artifact and the store.
 *
 * @example
 * ```ts
 * const store: ArtifactStore = new InMemoryArtifactStore();
 * const info = await store.put({ runId: "run_1", content: "[1,2,3]", items: 3, schema: { type: "array" } });
 * (await store.get("run_1", info.id))?.content; // "[1,2,3]"
 * await store.get("run_2", info.id); // undefined: another run's artifact
 * ```
 */
export interface ArtifactStore {
  /** Stores the artifact under its sha256 id; storing the same content again in the run keeps one copy. */
  put(artifact: ArtifactWrite): Promise<ArtifactInfo>;
  /** The artifact, or `undefined` when the run has none with this id (another run's included). */
  get(runId: string, id: string): Promise<StoredArtifact | undefined>;
  /** The run's artifacts, oldest first, without content. */
  list(runId: string): Promise<readonly ArtifactInfo[]>;
  /** Deletes every artifact of the run; resolves how many there were. */
  deleteRun(runId: string): Promise<number>;
}

/** The artifacts' store area (`PayloadContext.namespace`) when a codec seals them. */
export const ARTIFACT_NAMESPACE = "artifacts";

/**
 * The flag (`metadata.flags`) of an outcome whose result was stored as an artifact: its `data` is a
 * preview, its `artifact` the reference.
 *
 * @example
 * ```ts
 * if (outcome.metadata.flags?.includes(ARTIFACT_STORED_FLAG)) console.log(outcome.artifact?.id);
 * ```
 */
export const ARTIFACT_STORED_FLAG = "ARTIFACT_STORED";

/**
 * The flag (`metadata.flags`) of a `read_artifact` outcome: a page read from an artifact.
 *
 * @example
 * ```ts
 * const pages = outcomes.filter((o) => o.metadata.flags?.includes(ARTIFACT_PAGE_FLAG));
 * ```
 */
export const ARTIFACT_PAGE_FLAG = "ARTIFACT_PAGE";

/** The default media type of an artifact. */
export const JSON_MEDIA_TYPE = "application/json";

/**
 * An artifact's id: the sha256 of its content (UTF-8), as 64 lower-case hex digits.
 *
 * @example
 * ```ts
 * artifactId("[1,2,3]"); // "a615eeaee21de5179de080de8c3052c8da901138406ba71c38c032845f7d54f4"
 * ```
 */
export function artifactId(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}

const ID = /^[0-9a-f]{64}$/;
const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * True when `id` has the form of an artifact id (64 lower-case hex digits): anything else names no
 * artifact and is never looked up.
 *
 * @example
 * ```ts
 * isArtifactId("not-an-id"); // false
 * ```
 */
export function isArtifactId(id: unknown): id is string {
  return typeof id === "string" && ID.test(id);
}

/**
 * `runId`, checked as every artifact store checks it before it reads or writes: a `NeedleworkError`
 * `INVALID_RUN_ID` (naming `store`) for anything but 1-200 letters, digits, `_ . : -`.
 *
 * @example
 * ```ts
 * async list(runId: string) {
 *   checkArtifactRunId("S3ArtifactStore", runId);
 *   return this.bucket.list(`${runId}/`);
 * }
 * ```
 */
export function checkArtifactRunId(store: string, runId: unknown): string {
  if (typeof runId !== "string" || !RUN_ID.test(runId))
    throw new NeedleworkError(
      "INVALID_RUN_ID",
      `${store}: run id ${JSON.stringify(String(runId)).slice(0, 80)} is not a usable run id (1-200 letters, digits, _ . : -).`,
    );
  return runId;
}

/**
 * An `ArtifactStore.put` argument, checked and normalised as the built-in stores do: the run id (as
 * {@link checkArtifactRunId}), string `content` (a `TypeError` otherwise), `items` a safe integer
 * (else 1), `schema` (else `null`), `mediaType` (else JSON's) and the `untrusted` provenance mark.
 *
 * @example
 * ```ts
 * async put(artifact: ArtifactWrite) {
 *   const { runId, content, items, schema, mediaType, provenance } = checkArtifactWrite("S3ArtifactStore", artifact);
 *   // ... store them under artifactId(runId, content)
 * }
 * ```
 */
export function checkArtifactWrite(
  store: string,
  artifact: ArtifactWrite,
): {
  runId: string;
  content: string;
  items: number;
  schema: JsonValue;
  mediaType: string;
  provenance: { provenance?: "untrusted" };
} {
  if (typeof artifact !== "object" || artifact === null)
    throw new TypeError(`${store}.put: pass { runId, content, items, schema }.`);
  const runId = checkArtifactRunId(store, artifact.runId);
  if (typeof artifact.content !== "string")
    throw new TypeError(`${store}.put: content must be a string (the JSON text of the value).`);
  const items = Number.isSafeInteger(artifact.items) && artifact.items >= 0 ? artifact.items : 1;
  const mediaType =
    Object.hasOwn(artifact, "mediaType") && typeof artifact.mediaType === "string" && artifact.mediaType !== ""
      ? artifact.mediaType
      : JSON_MEDIA_TYPE;
  const provenance: { provenance?: "untrusted" } =
    Object.hasOwn(artifact, "provenance") && artifact.provenance === "untrusted" ? { provenance: "untrusted" } : {};
  return { runId, content: artifact.content, items, schema: artifact.schema ?? null, mediaType, provenance };
}
