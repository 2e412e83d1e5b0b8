/**
 * An options object as its own properties say, and nothing else: a null-prototype copy holding
 * every key in `keys` (the value when it is the object's own property, else `undefined`). A
 * polluted `Object.prototype` (`Object.prototype.checkpointSecret = ...`) then supplies nothing:
 * neither a read of the copy nor of a spread of it (every known key is there, own) ever reaches a
 * prototype. Read options through it once, where they are given.
 *
 * @example
 * ```ts
 * const own = ownOptions(options, ["runId", "approve"]);
 * if (own.approve !== undefined) await own.approve(call);
 * ```
 * Part of `@needlework/core/kit`.
 */
export function ownOptions<T extends object>(value: T | null | undefined, keys: readonly (keyof T & string)[]): T {
  const copy = Object.create(null) as Record<string, unknown>;
  const source = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  for (const key of keys) copy[key] = source !== undefined && Object.hasOwn(source, key) ? source[key] : undefined;
  return copy as T;
}
