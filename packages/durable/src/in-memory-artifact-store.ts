import {
  type ArtifactInfo,
  type ArtifactStore,
  type ArtifactWrite,
  artifactId,
  checkArtifactRunId,
  checkArtifactWrite,
  isArtifactId,
  type StoredArtifact,
} from "./artifact-store.js";

/**
 * Artifacts in memory, for one process: kept until their run is deleted (`deleteRun`), so a
 * long-lived process deletes the runs it no longer needs (or uses `FileArtifactStore` or a
 * `PostgresStore`'s `artifacts`).
 *
 * @example
 * ```ts
 * const artifacts = new InMemoryArtifactStore();
 * const factory = usingAgentFramework().addAgentFunctions(ReportTools)
 *   .usingToolResultMiddleware().usingRedaction().usingArtifacts({ store: artifacts })
 *   .buildAgentFactory();
 * ```
 */
export class InMemoryArtifactStore implements ArtifactStore {
  private readonly runs = new Map<string, Map<string, StoredArtifact>>();

  async put(artifact: ArtifactWrite): Promise<ArtifactInfo> {
    const { runId, content, items, schema, mediaType, provenance } = checkArtifactWrite(
      "InMemoryArtifactStore",
      artifact,
    );
    const id = artifactId(content);
    let run = this.runs.get(runId);
    if (run === undefined) this.runs.set(runId, (run = new Map()));
    let stored = run.get(id);
    if (stored === undefined) {
      const bytes = Buffer.byteLength(content, "utf8");
      const createdAt = new Date().toISOString();
      stored = {
        id,
        runId,
        bytes,
        items,
        schema: structuredClone(schema),
        mediaType,
        ...provenance,
        createdAt,
        content,
      };
      run.set(id, stored);
    }
    return infoOf(stored);
  }

  async get(runId: string, id: string): Promise<StoredArtifact | undefined> {
    checkArtifactRunId("InMemoryArtifactStore", runId);
    if (!isArtifactId(id)) return undefined;
    const stored = this.runs.get(runId)?.get(id);
    return stored === undefined ? undefined : { ...stored, schema: structuredClone(stored.schema) };
  }

  async list(runId: string): Promise<readonly ArtifactInfo[]> {
    checkArtifactRunId("InMemoryArtifactStore", runId);
    return [...(this.runs.get(runId)?.values() ?? [])].map(infoOf);
  }

  async deleteRun(runId: string): Promise<number> {
    checkArtifactRunId("InMemoryArtifactStore", runId);
    const count = this.runs.get(runId)?.size ?? 0;
    this.runs.delete(runId);
    return count;
  }
}

function infoOf(stored: StoredArtifact): ArtifactInfo {
  const { content: _content, schema, ...info } = stored;
  return { ...info, schema: structuredClone(schema) };
}
