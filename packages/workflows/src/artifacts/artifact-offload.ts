import {
  type ArtifactReference,
  createToolOutcome,
  formatToolOutcome,
  isToolOutcome,
  isUntrustedOutcome,
  markUntrusted,
  type ToolCallContext,
  type ToolMiddleware,
  type ToolOutcome,
  type ToolOutcomeStyle,
} from "@needlework/core";
import {
  BINARY_ARTIFACTS_ITEM,
  type BinaryArtifactSink,
  binaryMediaType,
  toolValueOutcome,
} from "@needlework/core/internal";
import { ARTIFACT_STORED_FLAG, type ArtifactStore } from "@needlework/durable";
import { surelyFits } from "@needlework/shaping/internal";
import { reviseOutcome } from "../shaping/shaping-middleware.js";
import type { ArtifactReader } from "./artifact-reader.js";
import { inferSchema, rootItems } from "./artifact-schema.js";
import type { PageMeasure } from "./artifact-page.js";

/**
 * The flag of a result too large to read whole that could not be stored (the store failed): the
 * model reads a preview and is told so.
 *
 * @example
 * ```ts
 * if (outcome.metadata.flags?.includes(ARTIFACT_NOT_STORED_FLAG)) alerts.warn("artifact store down");
 * ```
 */
export const ARTIFACT_NOT_STORED_FLAG = "ARTIFACT_NOT_STORED";

/** What the offloading step needs. @internal */
export interface OffloadParts {
  readonly store: ArtifactStore;
  readonly offloadBytes: number;
  readonly previewTokens: number;
  readonly measure: PageMeasure;
  /** Keeps what was stored for the first pages (the plugin's reader); none for a one-off store. */
  readonly reader?: ArtifactReader;
  /** The redaction of the plugins registered outside this one (normally none: they belong inside). */
  readonly redact: (<T>(value: T) => T) | undefined;
  readonly style: () => ToolOutcomeStyle;
  /** The tool that reads artifacts: its pages are never stored again. */
  readonly readTool: string;
}

/**
 * Stores a result as an artifact: the outcome's (redacted) `data`, when its JSON passes
 * `offloadBytes`. @internal
 */
export async function offloadOutcome(
  outcome: ToolOutcome,
  call: Pick<ToolCallContext, "name" | "runId" | "callId" | "idempotencyKey" | "attempt"> & {
    readonly untrusted: boolean;
  },
  parts: OffloadParts,
): Promise<ToolOutcome | undefined> {
  const { data } = outcome;
  if (data === undefined || outcome.artifact !== undefined || surelyFits(data, parts.offloadBytes)) return undefined;
  const value = parts.redact === undefined ? data : parts.redact(data);
  const content = JSON.stringify(value);
  if (content === undefined || Buffer.byteLength(content, "utf8") <= parts.offloadBytes) return undefined;
  const untrusted = call.untrusted || isUntrustedOutcome(outcome);
  const schema = fittedSchema(value, parts);
  let reference: ArtifactReference;
  try {
    const info = await parts.store.put({
      runId: call.runId,
      content,
      items: rootItems(value),
      schema,
      ...(untrusted ? { provenance: "untrusted" as const } : {}),
    });
    parts.reader?.remember(info, value);
    reference = { id: info.id, bytes: info.bytes, items: info.items, schema: info.schema };
  } catch {
    // The store failed: the model reads a preview and is told the rest is not kept (never why).
    const budget = parts.previewTokens - envelopeTokens(outcome, undefined, call, untrusted, parts);
    return reviseOutcome(outcome, ARTIFACT_NOT_STORED_FLAG, {
      data: parts.measure.cut(value, Math.max(16, budget)),
      message: "The result was too large to read whole and could not be stored: `data` is a preview of it.",
    });
  }
  const budget = parts.previewTokens - envelopeTokens(outcome, reference, call, untrusted, parts);
  return reviseOutcome(outcome, ARTIFACT_STORED_FLAG, {
    data: parts.measure.cut(value, Math.max(16, budget)),
    artifact: reference,
  });
}

/** The schema the model reads, at most a quarter of the budget: shallower until it fits. */
function fittedSchema(value: unknown, parts: OffloadParts): ReturnType<typeof inferSchema> {
  const room = Math.floor(parts.previewTokens / 4);
  for (let depth = 4; depth > 0; depth--) {
    const schema = inferSchema(value, { depth, sample: 50, properties: 30 });
    if (parts.measure.count(JSON.stringify(schema)) <= room) return schema;
  }
  return inferSchema(value, { depth: 0, sample: 0, properties: 0 });
}

/** Tokens of the stored result's envelope without its data, as the model will read it. */
function envelopeTokens(
  outcome: ToolOutcome,
  artifact: ArtifactReference | undefined,
  call: Pick<ToolCallContext, "name" | "callId" | "idempotencyKey" | "attempt">,
  untrusted: boolean,
  parts: OffloadParts,
): number {
  const flags = [
    ...(outcome.metadata.flags ?? []),
    artifact === undefined ? ARTIFACT_NOT_STORED_FLAG : ARTIFACT_STORED_FLAG,
  ];
  const stub = createToolOutcome({
    status: outcome.status,
    retriable: outcome.retriable,
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    ...(outcome.suggestion === undefined ? {} : { suggestion: outcome.suggestion }),
    ...(outcome.failures === undefined ? {} : { failures: outcome.failures }),
    ...(artifact === undefined
      ? { message: "The result was too large to read whole and could not be stored: `data` is a preview of it." }
      : { artifact }),
    data: null,
    metadata: {
      ...outcome.metadata,
      tool: call.name,
      callId: call.callId,
      attempts: Math.max(1, call.attempt),
      latencyMs: 123_456.78,
      idempotencyKey: call.idempotencyKey,
      flags,
    },
  });
  if (untrusted) markUntrusted(stub);
  // A margin for what layers outside may still add to the metadata (a redaction flag, retry codes).
  return parts.measure.count(formatToolOutcome(stub, { style: parts.style() })) + 16;
}

/**
 * The middleware of `usingArtifacts()`: a result over `offloadBytes` is stored and answered by its
 * preview and reference; everything else (and every page of `read_artifact`) passes untouched.
 * @internal
 */
export function offloadMiddleware(parts: OffloadParts): ToolMiddleware {
  return async (call, next) => {
    if (call.name === parts.readTool) return next();
    const untrusted = call.tool.options.reads === "untrusted";
    call.items.set(BINARY_ARTIFACTS_ITEM, binarySink(parts.store, call.runId, untrusted));
    const result = await next();
    const outcome = isToolOutcome(result) ? result : toolValueOutcome(result, call.tool);
    return (await offloadOutcome(outcome, { ...pickCall(call), untrusted }, parts)) ?? result;
  };
}

function pickCall(call: ToolCallContext) {
  const { name, runId, callId, idempotencyKey, attempt } = call;
  return { name, runId, callId, idempotencyKey, attempt };
}

/** A media type as a server may send one: `type/subtype`, else the generic binary type. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/**
 * Where the call's tool stores binary content (`items`, {@link BINARY_ARTIFACTS_ITEM}): the run's
 * store, as base64 text under `<type>;base64`, marked untrusted when the tool reads untrusted
 * content. Bytes cannot be redacted as text: they are stored as they came, never shown to the model.
 */
function binarySink(store: ArtifactStore, runId: string, untrusted: boolean): BinaryArtifactSink {
  return {
    put: async ({ base64, mediaType }) => {
      const type = MEDIA_TYPE.test(mediaType) ? mediaType.toLowerCase() : "application/octet-stream";
      const bytes = Buffer.from(base64, "base64");
      const info = await store.put({
        runId,
        content: bytes.toString("base64"),
        items: 1,
        schema: { type: "string", contentEncoding: "base64", contentMediaType: type },
        mediaType: binaryMediaType(type),
        ...(untrusted ? { provenance: "untrusted" as const } : {}),
      });
      return { id: info.id, bytes: bytes.length };
    },
  };
}
