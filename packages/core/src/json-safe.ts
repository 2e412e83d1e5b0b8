/** Options of {@link toJsonSafe}. */
export interface JsonSafeOptions {
  /** Nesting deeper than this is replaced by `"[MaxDepth]"`. Default 64. */
  readonly maxDepth?: number;
}

/** A value JSON can carry as it is. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

function describeBinary(value: ArrayBufferView | ArrayBuffer): string {
  const name = Object.prototype.toString.call(value).slice(8, -1);
  return `[${name} ${value.byteLength} bytes]`;
}

function primitiveSafe(value: unknown): JsonValue | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "symbol":
      return value.toString();
    case "function":
      return undefined;
    case "undefined":
      return undefined;
    default:
      return value === null ? null : undefined;
  }
}

/**
 * Converts any value into one that `JSON.stringify` renders without throwing and without silent
 * loss: BigInt becomes a decimal string, Map an object (or entry list for non-string keys), Set an
 * array, Date an ISO string, cycles `"[Circular]"`, binary data a size marker, Errors their type
 * name only (never the message), values whose getters or `toJSON` throw `"[Unserializable]"`.
 *
 * @example
 * ```ts
 * JSON.stringify(toJsonSafe({ n: 10n, tags: new Set(["a"]) })); // {"n":"10","tags":["a"]}
 * ```
 */
export function toJsonSafe(value: unknown, options: JsonSafeOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? 64;
  const ancestors: object[] = [];

  const walk = (input: unknown, depth: number): JsonValue | undefined => {
    if (input === null || typeof input !== "object") return primitiveSafe(input);
    if (ancestors.includes(input)) return "[Circular]";
    if (depth >= maxDepth) return "[MaxDepth]";
    ancestors.push(input);
    try {
      return walkObject(input, depth);
    } catch {
      return "[Unserializable]";
    } finally {
      ancestors.pop();
    }
  };

  const walkObject = (input: object, depth: number): JsonValue | undefined => {
    if (input instanceof Date) return Number.isNaN(input.getTime()) ? null : input.toISOString();
    if (input instanceof Error) return { error: errorName(input) };
    if (ArrayBuffer.isView(input) || input instanceof ArrayBuffer) return describeBinary(input);
    if (Array.isArray(input)) {
      const out: JsonValue[] = [];
      for (const item of input) {
        const safe = walk(item, depth + 1);
        out.push(safe === undefined ? null : safe);
      }
      return out;
    }
    if (input instanceof Map) {
      const keys = [...input.keys()];
      if (keys.every((k) => typeof k === "string" || typeof k === "number")) {
        const out: Record<string, JsonValue> = {};
        for (const [k, v] of input) {
          const safe = walk(v, depth + 1);
          if (safe !== undefined) setOwn(out, String(k), safe);
        }
        return out;
      }
      return [...input].map(([k, v]) => [walk(k, depth + 1) ?? null, walk(v, depth + 1) ?? null]);
    }
    if (input instanceof Set) return [...input].map((v) => walk(v, depth + 1) ?? null);
    const toJSON = (input as { toJSON?: unknown }).toJSON;
    // depth + 1: a toJSON that returns a fresh object with its own toJSON must not recurse unbounded.
    if (typeof toJSON === "function") return walk(toJSON.call(input), depth + 1);
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(input)) {
      let item: unknown;
      try {
        item = (input as Record<string, unknown>)[key];
      } catch {
        setOwn(out, key, "[Unreadable]");
        continue;
      }
      const safe = walk(item, depth + 1);
      if (safe !== undefined) setOwn(out, key, safe);
    }
    return out;
  };

  const result = walk(value, 0);
  return result === undefined ? null : result;
}

/** Assigns an own key; a plain assignment to `__proto__` would change the prototype and drop the key. */
function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function errorName(error: Error): string {
  try {
    return typeof error.name === "string" ? error.name : "Error";
  } catch {
    return "Error";
  }
}

function fastReplacer(this: unknown, key: string, value: unknown): unknown {
  switch (typeof value) {
    case "bigint":
    case "symbol":
    case "function":
      throw FALLBACK;
    case "object":
      if (value === null || Array.isArray(value)) return value;
      if (value instanceof Map || value instanceof Set || value instanceof Error || ArrayBuffer.isView(value)) throw FALLBACK;
      // Buffer#toJSON has already run and made a byte array of it; render the size marker instead.
      if ((value as { type?: unknown }).type === "Buffer" && ArrayBuffer.isView((this as Record<string, unknown>)[key])) throw FALLBACK;
      return value;
    default:
      return value;
  }
}
const FALLBACK = Symbol("fallback");

/**
 * `JSON.stringify` that never throws and never loses data silently: the fast native path when the
 * value is plain JSON, {@link toJsonSafe} otherwise.
 */
export function safeJsonStringify(value: unknown, space?: number): string {
  try {
    const text = JSON.stringify(value, fastReplacer, space);
    return text === undefined ? "null" : text;
  } catch {
    return JSON.stringify(toJsonSafe(value), null, space);
  }
}
