import type { BinaryArtifactSink } from "@needlework/core/internal";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What the model reads of a binary or resource content item: its type, media type and size, never
 * its bytes; with `usingArtifacts()` on, binary content (an image, audio, a resource's blob) is
 * stored in the run's artifact store and `artifact` names it.
 *
 * @example
 * ```ts
 * const shown: ContentDescription = { type: "image", mimeType: "image/png", bytes: 2048 };
 * ```
 */
export interface ContentDescription {
  readonly type: "image" | "audio" | "resource" | "resource_link";
  readonly mimeType?: string;
  /** The decoded size in bytes (base64 data, or a resource's blob or text). */
  readonly bytes?: number;
  readonly uri?: string;
  readonly name?: string;
  /**
   * The stored bytes (with `usingArtifacts()`): `id` for the inspector's download; `read_artifact`
   * answers `ARTIFACT_BINARY` for it, as bytes are never read as text.
   */
  readonly artifact?: { readonly id: string; readonly bytes: number };
}

type NonText = Exclude<CallToolResult["content"][number], { type: "text" }>;

/** The artifacts of a result's binary items, by item. @internal */
export type StoredBinaries = ReadonlyMap<object, { readonly id: string; readonly bytes: number }>;

/** The base64 bytes and media type of a binary content item, if it is one. */
function binaryOf(item: CallToolResult["content"][number]): { base64: string; mediaType: string } | undefined {
  if ((item.type === "image" || item.type === "audio") && typeof item.data === "string")
    return { base64: item.data, mediaType: text(item.mimeType) ?? "application/octet-stream" };
  if (item.type === "resource") {
    const resource = item.resource as { blob?: unknown; mimeType?: unknown };
    if (typeof resource.blob === "string")
      return { base64: resource.blob, mediaType: text(resource.mimeType) ?? "application/octet-stream" };
  }
  return undefined;
}

/**
 * Stores each binary item of a result through the artifacts sink (none when `usingArtifacts()` is
 * off: nothing is stored). A store that fails leaves the item described without a reference: the
 * model still never reads its bytes. @internal
 */
export async function storeBinaries(
  result: CallToolResult,
  sink: BinaryArtifactSink | undefined,
): Promise<StoredBinaries> {
  const stored = new Map<object, { id: string; bytes: number }>();
  if (sink === undefined || result.isError === true) return stored;
  for (const item of result.content ?? []) {
    const binary = binaryOf(item);
    if (binary === undefined) continue;
    try {
      stored.set(item, await sink.put(binary));
    } catch {
      // Described by type and size only; the store's failure stays out of the model's context.
    }
  }
  return stored;
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/[^A-Za-z0-9+/=_-]/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Describes a non-text content item of an MCP result (type, media type, size; a resource's URI and
 * name) so the model reads what came back without base64 in its context. @internal
 *
 * @example
 * ```ts
 * describeContent({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }); // { type: "image", mimeType: "image/png", bytes: 8 }
 * ```
 */
export function describeContent(item: NonText, stored?: StoredBinaries): ContentDescription {
  const artifact = stored?.get(item);
  const described = describeItem(item);
  return artifact === undefined ? described : { ...described, artifact: { id: artifact.id, bytes: artifact.bytes } };
}

function describeItem(item: NonText): ContentDescription {
  switch (item.type) {
    case "image":
    case "audio": {
      const mimeType = text(item.mimeType);
      return { type: item.type, ...(mimeType ? { mimeType } : {}), bytes: base64Bytes(item.data) };
    }
    case "resource": {
      const resource = item.resource as { uri?: unknown; mimeType?: unknown; blob?: unknown; text?: unknown };
      const uri = text(resource.uri);
      const mimeType = text(resource.mimeType);
      const bytes =
        typeof resource.blob === "string"
          ? base64Bytes(resource.blob)
          : typeof resource.text === "string"
            ? Buffer.byteLength(resource.text, "utf8")
            : undefined;
      return {
        type: "resource",
        ...(uri ? { uri } : {}),
        ...(mimeType ? { mimeType } : {}),
        ...(bytes === undefined ? {} : { bytes }),
      };
    }
    default: {
      const link = item as { uri?: unknown; name?: unknown; mimeType?: unknown };
      const uri = text(link.uri);
      const name = text(link.name);
      const mimeType = text(link.mimeType);
      return {
        type: "resource_link",
        ...(uri ? { uri } : {}),
        ...(name ? { name } : {}),
        ...(mimeType ? { mimeType } : {}),
      };
    }
  }
}
