import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { JsonValue } from "@needlework/core";
import { ownOption, ownProperties } from "@needlework/core/kit";
import {
  ARTIFACT_NAMESPACE,
  type ArtifactInfo,
  type ArtifactStore,
  type ArtifactWrite,
  artifactId,
  checkArtifactRunId,
  checkArtifactWrite,
  isArtifactId,
  type StoredArtifact,
} from "./artifact-store.js";
import type { PayloadCodec, PayloadContext } from "./payload-codec.js";
import { RunStoreError } from "./run-store-error.js";
import { fileStoreId } from "./store-identity.js";

/** Options of {@link FileArtifactStore}. */
export interface FileArtifactStoreOptions {
  /**
   * Seals each artifact's content and schema (`aesGcmCodec(key)`), bound to its run, its id and this
   * store: a file moved to another run or another store does not open. With a codec, an artifact
   * stored in clear is refused (`PAYLOAD_UNSEALED`).
   */
  readonly codec?: PayloadCodec;
}

/** The first line of an artifact file: its facts; then the content (sealed with a codec). */
interface Header {
  readonly id: string;
  readonly runId: string;
  readonly bytes: number;
  readonly items: number;
  readonly mediaType: string;
  readonly createdAt: string;
  readonly sealed: boolean;
  readonly provenance?: "untrusted";
  /** The schema, or (sealed) the codec's text of its JSON. */
  readonly schema: JsonValue;
}

/**
 * Artifacts in a directory: one file per artifact under a folder per run (`run-<runId>/<id>.artifact`),
 * written whole and renamed into place (a crash leaves the old state or the new, never a torn
 * file); `deleteRun` removes the run's folder. A `FileRunStore` keeps its own under `artifacts/`.
 *
 * @example
 * ```ts
 * const artifacts = new FileArtifactStore(join(os.tmpdir(), "crm-artifacts"), { codec: aesGcmCodec(key) });
 * ```
 */
export class FileArtifactStore implements ArtifactStore {
  private readonly codec: PayloadCodec | undefined;
  private storeId: Promise<string> | undefined;

  constructor(
    readonly directory: string,
    options: FileArtifactStoreOptions = {},
  ) {
    if (typeof directory !== "string" || directory === "")
      throw new TypeError("FileArtifactStore: pass a directory path.");
    this.codec = ownOption(ownProperties(options), "codec");
    if (
      this.codec !== undefined &&
      (typeof this.codec.encode !== "function" || typeof this.codec.decode !== "function")
    )
      throw new TypeError("FileArtifactStore: codec must be a PayloadCodec ({ encode, decode }).");
  }

  async put(artifact: ArtifactWrite): Promise<ArtifactInfo> {
    const { runId, content, items, schema, mediaType, provenance } = checkArtifactWrite("FileArtifactStore", artifact);
    const id = artifactId(content);
    const path = this.file(runId, id);
    const existing = await this.header(runId, id);
    if (existing !== undefined) return this.infoOf(existing);
    const createdAt = new Date().toISOString();
    const bytes = Buffer.byteLength(content, "utf8");
    const sealed = this.codec !== undefined;
    const header: Header = {
      id,
      runId,
      bytes,
      items,
      mediaType,
      createdAt,
      sealed,
      ...provenance,
      schema: sealed ? await this.seal(JSON.stringify(schema), runId, id, "artifact-schema") : schema,
    };
    const body = sealed ? await this.seal(content, runId, id, "artifact") : content;
    await mkdir(this.folder(runId), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    const handle = await open(temporary, "wx");
    try {
      await handle.writeFile(`${JSON.stringify(header)}\n${body}`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    return this.infoOf(header);
  }

  async get(runId: string, id: string): Promise<StoredArtifact | undefined> {
    checkArtifactRunId("FileArtifactStore", runId);
    if (!isArtifactId(id)) return undefined;
    let text: string;
    try {
      text = await readFile(this.file(runId, id), "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw error;
    }
    const newline = text.indexOf("\n");
    const header = parseHeader(newline === -1 ? text : text.slice(0, newline), runId, id);
    const body = newline === -1 ? "" : text.slice(newline + 1);
    const info = await this.infoOf(header);
    return { ...info, content: header.sealed ? await this.open(body, runId, id, "artifact") : body };
  }

  async list(runId: string): Promise<readonly ArtifactInfo[]> {
    checkArtifactRunId("FileArtifactStore", runId);
    let names: string[];
    try {
      names = await readdir(this.folder(runId));
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return [];
      throw error;
    }
    const infos: ArtifactInfo[] = [];
    for (const name of names) {
      const id = name.endsWith(".artifact") ? name.slice(0, -".artifact".length) : "";
      if (!isArtifactId(id)) continue;
      const header = await this.header(runId, id);
      if (header !== undefined) infos.push(await this.infoOf(header));
    }
    return infos.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async deleteRun(runId: string): Promise<number> {
    checkArtifactRunId("FileArtifactStore", runId);
    const folder = this.folder(runId);
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return 0;
      throw error;
    }
    await rm(folder, { recursive: true, force: true });
    return names.filter((name) => name.endsWith(".artifact")).length;
  }

  private file(runId: string, id: string): string {
    return join(this.folder(runId), `${id}.artifact`);
  }

  /** The run's folder: `run-<runId>`, so no run id (`..` included) names a folder outside the store's. */
  private folder(runId: string): string {
    return join(this.directory, `run-${runId}`);
  }

  /** The header of an artifact file, or `undefined` when there is none. Reads only the first line. */
  private async header(runId: string, id: string): Promise<Header | undefined> {
    let handle;
    try {
      handle = await open(this.file(runId, id), "r");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      let text = "";
      const chunk = Buffer.alloc(16_384);
      for (let position = 0; ; ) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        text += chunk.toString("utf8", 0, bytesRead);
        position += bytesRead;
        const newline = text.indexOf("\n");
        if (newline !== -1) {
          text = text.slice(0, newline);
          break;
        }
      }
      return parseHeader(text, runId, id);
    } finally {
      await handle.close();
    }
  }

  private async infoOf(header: Header): Promise<ArtifactInfo> {
    if (this.codec !== undefined && header.sealed !== true)
      throw new RunStoreError(
        "PAYLOAD_UNSEALED",
        `FileArtifactStore: the store has a codec, but an artifact of run '${header.runId}' is stored in clear, where a sealed one belongs. It is not read.`,
      );
    const schema = header.sealed
      ? (JSON.parse(await this.open(String(header.schema), header.runId, header.id, "artifact-schema")) as JsonValue)
      : header.schema;
    const { id, runId, bytes, items, mediaType, createdAt } = header;
    const provenance = header.provenance === "untrusted" ? { provenance: header.provenance } : {};
    return { id, runId, bytes, items, schema, mediaType, ...provenance, createdAt };
  }

  private async seal(plain: string, runId: string, id: string, kind: string): Promise<string> {
    return this.codec!.encode(plain, await this.context(runId, id, kind));
  }

  private async open(sealed: string, runId: string, id: string, kind: string): Promise<string> {
    if (this.codec === undefined)
      throw new RunStoreError(
        "PAYLOAD_UNREADABLE",
        "FileArtifactStore: an artifact is sealed, and this store has no codec to open it: pass the store's { codec }.",
      );
    return this.codec.decode(sealed, await this.context(runId, id, kind));
  }

  /** Where a sealed value belongs: the run, the artifact and this store (its id, made on first use). */
  private async context(runId: string, id: string, kind: string): Promise<PayloadContext> {
    this.storeId ??= fileStoreId(this.directory).catch((error: unknown) => {
      this.storeId = undefined;
      throw error;
    });
    const store = await this.storeId;
    return { namespace: ARTIFACT_NAMESPACE, runId, kind, ref: `${store}/${id}`, store: `file:${store}` };
  }
}

/** The header line, checked against where the file lies; a header from elsewhere is refused. */
function parseHeader(line: string, runId: string, id: string): Header {
  let header: Header;
  try {
    header = JSON.parse(line) as Header;
  } catch {
    throw new RunStoreError("PAYLOAD_UNREADABLE", "FileArtifactStore: an artifact file is not in the store's format.");
  }
  if (header?.id !== id || header.runId !== runId)
    throw new RunStoreError(
      "PAYLOAD_UNREADABLE",
      "FileArtifactStore: an artifact file names another run or artifact than where it lies: it was moved.",
    );
  return header;
}
