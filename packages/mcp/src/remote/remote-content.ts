import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What the model reads of a binary or resource content item: its type, media type and size, never
 * its bytes. (When artifacts land, this is the one function that stores the bytes and adds the
 * artifact's reference.)
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
export function describeContent(
  item: Exclude<CallToolResult["content"][number], { type: "text" }>,
): ContentDescription {
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
