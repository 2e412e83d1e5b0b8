/**
 * What a tool stores binary content through (MCP images, audio, resource blobs) when
 * `usingArtifacts()` is on: the artifacts middleware sets it in the call's `items` under
 * {@link BINARY_ARTIFACTS_ITEM}; a tool finds none when artifacts are off. @internal
 *
 * @example
 * ```ts
 * const sink = ctx.items.get(BINARY_ARTIFACTS_ITEM) as BinaryArtifactSink | undefined;
 * const stored = await sink?.put({ base64: item.data, mediaType: "image/png" });
 * ```
 */
export interface BinaryArtifactSink {
  /** Stores the bytes (as base64 text) in the run's artifact store; resolves to its reference. */
  put(binary: { readonly base64: string; readonly mediaType: string }): Promise<{
    readonly id: string;
    /** The decoded size, in bytes. */
    readonly bytes: number;
  }>;
}

/** The `items` key of the {@link BinaryArtifactSink} (set by `usingArtifacts()`'s middleware). @internal */
export const BINARY_ARTIFACTS_ITEM = "needlework.binaryArtifacts";

/**
 * The media type an artifact of binary content is stored under: its own type with `;base64`, as a
 * data URL spells it; the store's `content` is then base64 text. @internal
 *
 * @example
 * ```ts
 * binaryMediaType("image/png"); // "image/png;base64"
 * ```
 */
export function binaryMediaType(mediaType: string): string {
  return `${mediaType};base64`;
}

/**
 * The media type of stored binary content without `;base64`, or `undefined` when the artifact is
 * not binary. @internal
 *
 * @example
 * ```ts
 * binaryBaseType("image/png;base64"); // "image/png"
 * ```
 */
export function binaryBaseType(stored: string): string | undefined {
  return stored.endsWith(";base64") ? stored.slice(0, -";base64".length) : undefined;
}
