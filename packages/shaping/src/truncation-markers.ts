/**
 * Names of the markers truncation leaves where it cut, so the model knows something is missing and
 * how much. Every marker is plain JSON, so a truncated result is still valid JSON.
 *
 * @example
 * ```ts
 * if (TRUNCATION_MARKERS.objectKey in record) console.log("some keys were dropped");
 * ```
 */
export const TRUNCATION_MARKERS = {
  /** The key added to an object whose keys were dropped; its value is `{ omitted_keys: N }`. */
  objectKey: "_truncated",
} as const;

/**
 * The item appended to a cut list.
 *
 * @example
 * ```ts
 * listMarker(980); // { truncated: true, omitted_items: 980 }
 * ```
 */
export function listMarker(omittedItems: number): { truncated: true; omitted_items: number } {
  return { truncated: true, omitted_items: omittedItems };
}

/**
 * The value of the `_truncated` key of an object whose keys were dropped.
 *
 * @example
 * ```ts
 * objectMarker(12); // { omitted_keys: 12 }
 * ```
 */
export function objectMarker(omittedKeys: number): { omitted_keys: number } {
  return { omitted_keys: omittedKeys };
}

/**
 * The text appended to a cut string.
 *
 * @example
 * ```ts
 * stringMarker(12_000); // "…[truncated: 12000 chars omitted]"
 * ```
 */
export function stringMarker(omittedChars: number): string {
  return `…[truncated: ${omittedChars} chars omitted]`;
}
