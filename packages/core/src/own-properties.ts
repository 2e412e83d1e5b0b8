/**
 * An option read from the options object's own properties only: a key inherited from a polluted
 * `Object.prototype` (or any prototype) is not an option. Part of `@needlework/core/kit`.
 */
export function ownOption<T extends object, K extends keyof T>(options: T | undefined, key: K): T[K] | undefined {
  if (options === null || typeof options !== "object") return undefined;
  return Object.hasOwn(options, key) ? options[key] : undefined;
}

/**
 * A copy of `options` holding its own enumerable properties only, on a null prototype: what an
 * options schema parses, so an inherited key is never read as an option. Part of `@needlework/core/kit`.
 */
export function ownProperties<T>(options: T): T {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return options;
  const copy = Object.create(null) as Record<PropertyKey, unknown>;
  for (const key of Object.keys(options)) copy[key] = (options as Record<string, unknown>)[key];
  return copy as T;
}
