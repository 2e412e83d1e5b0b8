import {
  createToolOutcome,
  formatToolOutcome,
  markUntrusted,
  type ToolOutcome,
  type ToolOutcomeStyle,
} from "@needlework/core";
import { binaryBaseType } from "@needlework/core/internal";
import { ARTIFACT_PAGE_FLAG, type ArtifactInfo, type ArtifactStore, isArtifactId } from "@needlework/durable";
import { followPath, parsePath } from "./artifact-path.js";
import { type PageMeasure, pageOf } from "./artifact-page.js";

/** The arguments of `read_artifact`, validated. */
export interface ReadArtifactArguments {
  readonly id: string;
  readonly path?: string | null | undefined;
  readonly offset: number;
  readonly limit: number;
}

/** What a page's envelope carries besides its data: the call's own metadata. */
export interface PageCall {
  readonly name: string;
  readonly callId: string;
  readonly idempotencyKey: string;
}

/** Parsed artifacts kept for the next page: at most this many, and this many bytes of JSON. */
const CACHE_ENTRIES = 16;
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Reads pages of a run's artifacts for `read_artifact`, each within the token budget. The values of
 * the artifacts read last are kept parsed (bounded), so paging through one parses it once; the
 * cache is keyed by run, so it never answers another run.
 * @internal
 */
export class ArtifactReader {
  private readonly cache = new Map<string, { readonly info: ArtifactInfo; readonly value: unknown }>();
  private cachedBytes = 0;

  constructor(
    private readonly store: ArtifactStore,
    /** The budget of a page (read when a page is made: the factory's truncation budget by default). */
    private readonly maxTokens: () => number,
    private readonly measure: PageMeasure,
    private readonly style: () => ToolOutcomeStyle,
  ) {}

  /** Keeps a value just stored, so its first pages need no read. */
  remember(info: ArtifactInfo, value: unknown): void {
    const key = `${info.runId}\u0000${info.id}`;
    if (this.cache.has(key) || info.bytes > CACHE_BYTES) return;
    this.cache.set(key, { info, value });
    this.cachedBytes += info.bytes;
    for (const [old, entry] of this.cache) {
      if (this.cache.size <= CACHE_ENTRIES && this.cachedBytes <= CACHE_BYTES) break;
      this.cache.delete(old);
      this.cachedBytes -= entry.info.bytes;
    }
  }

  /** The outcome of one `read_artifact` call of run `runId`. */
  async read(runId: string, args: ReadArtifactArguments, call: PageCall): Promise<ToolOutcome> {
    const found = isArtifactId(args.id) ? await this.load(runId, args.id) : undefined;
    if (found === undefined || found === "unreadable") return found === "unreadable" ? unreadable() : notFound(args.id);
    if ("binary" in found) return binary(found.info, found.binary);
    const steps = parsePath(args.path ?? "$");
    if (steps === undefined)
      return invalid(
        `The path '${String(args.path).slice(0, 100)}' cannot be read.`,
        'Write a path like "$.rows", "rows[3].name" or "/rows/3", or leave it out for the whole artifact.',
      );
    const at = followPath(found.value, steps);
    if (!at.found)
      return invalid(`Nothing is at ${at.at.slice(0, 200)} in the artifact.`, `There: ${at.choices.slice(0, 400)}.`);
    const untrusted = found.info.provenance === "untrusted";
    const budget = this.maxTokens() - this.reserve(call, untrusted);
    const page = pageOf(at.value, args.offset, args.limit, Math.max(16, budget), this.measure);
    const outcome = createToolOutcome({ status: "ok", data: page, metadata: { flags: [ARTIFACT_PAGE_FLAG] } });
    return untrusted ? markUntrusted(outcome) : outcome;
  }

  /** Tokens of a page's envelope without its data: what the page must leave room for. */
  private reserve(call: PageCall, untrusted: boolean): number {
    const stub = createToolOutcome({
      status: "ok",
      data: null,
      metadata: {
        tool: call.name,
        callId: call.callId,
        attempts: 1,
        latencyMs: 123_456.78,
        idempotencyKey: call.idempotencyKey,
        flags: [ARTIFACT_PAGE_FLAG],
      },
    });
    if (untrusted) markUntrusted(stub);
    // A margin for what layers outside may add to the metadata (a redaction flag, retry counts).
    return this.measure.count(formatToolOutcome(stub, { style: this.style() })) + 12;
  }

  private async load(
    runId: string,
    id: string,
  ): Promise<
    { info: ArtifactInfo; value: unknown } | { info: ArtifactInfo; binary: string } | "unreadable" | undefined
  > {
    const key = `${runId}\u0000${id}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached); // most recently read last
      return cached;
    }
    try {
      const stored = await this.store.get(runId, id);
      if (stored === undefined) return undefined;
      const { content, ...info } = stored;
      // Binary content (an MCP image, audio, a resource's blob) is stored as base64: never paged as text.
      const mediaType = binaryBaseType(info.mediaType);
      if (mediaType !== undefined) return { info, binary: mediaType };
      const value: unknown = JSON.parse(content);
      this.remember(info, value);
      return { info, value };
    } catch {
      // A store that is down, a sealed artifact that does not open: the model learns that, never why.
      return "unreadable";
    }
  }
}

function notFound(id: string): ToolOutcome {
  return createToolOutcome({
    status: "error",
    errorCode: "NOT_FOUND",
    retriable: false,
    message: `This run has no artifact '${String(id).slice(0, 80)}'.`,
    suggestion: "Use the id in the `artifact` field of a result of this run.",
  });
}

/** A binary artifact: the model reads what it is, never its bytes. */
function binary(info: ArtifactInfo, mediaType: string): ToolOutcome {
  const bytes = Math.floor((info.bytes * 3) / 4);
  return createToolOutcome({
    status: "error",
    errorCode: "ARTIFACT_BINARY",
    retriable: false,
    message: `Artifact '${info.id.slice(0, 12)}…' is binary content (${mediaType.slice(0, 80)}, about ${bytes} bytes): it cannot be read as text.`,
    suggestion: "Answer from its type and size; a person can open it from the run in the inspector.",
  });
}

function unreadable(): ToolOutcome {
  return createToolOutcome({
    status: "error",
    errorCode: "ARTIFACT_UNREADABLE",
    retriable: true,
    message: "The artifact could not be read just now.",
    suggestion: "Try again later, or answer from the preview you have.",
  });
}

function invalid(message: string, suggestion: string): ToolOutcome {
  return createToolOutcome({ status: "error", errorCode: "INVALID_ARGUMENTS", retriable: false, message, suggestion });
}
