import { types } from "node:util";
import { errorTypeName } from "./tool-result.js";

/** Options of {@link toJsonSafe}. */
export interface JsonSafeOptions {
  /** Nesting deeper than this is replaced by `"[MaxDepth]"`. Default 64. */
  readonly maxDepth?: number;
  /**
   * Items of one array kept; the rest become one `"[… N more items]"` string, so a huge or sparse
   * array (`new Array(2 ** 32 - 1)`) costs time for what is kept, not for its length. Default 100,000.
   */
  readonly maxArrayItems?: number;
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

/** The primitive inside a boxed `new String/Number/Boolean/BigInt/Symbol(...)`, else `NOT_BOXED`. */
function unbox(value: object): unknown {
  // isBoxedPrimitive reads the object's internal slot: a forged prototype or toStringTag cannot fool it,
  // and it costs no exception for the plain objects and arrays that make up nearly every result (trying
  // valueOf of each prototype threw five times per object, each capturing a stack: 20-100x the cost of a
  // call returning an object, bench "tool-result-shapes").
  if (!types.isBoxedPrimitive(value)) return NOT_BOXED;
  // Brand checks by the real prototype's valueOf give the primitive.
  for (const proto of [String.prototype, Number.prototype, Boolean.prototype, BigInt.prototype, Symbol.prototype]) {
    try {
      return (proto.valueOf as (this: unknown) => unknown).call(value);
    } catch {
      // not this kind of box
    }
  }
  return NOT_BOXED;
}
const NOT_BOXED = Symbol("not boxed");

/**
 * Converts any value into one that `JSON.stringify` renders without throwing and without silent
 * loss: BigInt becomes a decimal string, Map an object (or entry list for non-string keys), Set an
 * array, Date an ISO string, a boxed primitive (`new String("x")`) its primitive, cycles `"[Circular]"`, binary data a size marker, Errors their type
 * name only (never the message), values whose getters or `toJSON` throw `"[Unserializable]"`.
 *
 * @example
 * ```ts
 * JSON.stringify(toJsonSafe({ n: 10n, tags: new Set(["a"]) })); // {"n":"10","tags":["a"]}
 * ```
 */
export function toJsonSafe(value: unknown, options: JsonSafeOptions = {}): JsonValue {
  const walk: Walk = {
    maxDepth: options.maxDepth ?? 64,
    maxArrayItems: options.maxArrayItems ?? 100_000,
    ancestors: [],
    prototypeHasKeys: hasEnumerableKey(Object.prototype),
  };
  const result = walkValue(walk, value, 0);
  return result === undefined ? null : result;
}

/** One {@link toJsonSafe} walk: its limits and the objects on the path from the root. */
interface Walk {
  readonly maxDepth: number;
  readonly maxArrayItems: number;
  readonly ancestors: object[];
  /** Someone added an enumerable key to Object.prototype (then `for...in` would list it). */
  readonly prototypeHasKeys: boolean;
}

// The walk is top-level functions over a `Walk` rather than closures made per call: a 1 KB order
// is copied in about two thirds of the time (bench "tool-result-shapes": the snapshot every outcome takes).
function walkValue(walk: Walk, input: unknown, depth: number): JsonValue | undefined {
  if (input === null || typeof input !== "object") return primitiveSafe(input);
  const { ancestors } = walk;
  if (ancestors.includes(input)) return "[Circular]";
  if (depth >= walk.maxDepth) return "[MaxDepth]";
  ancestors.push(input);
  try {
    return walkObject(walk, input, depth);
  } catch {
    return "[Unserializable]";
  } finally {
    ancestors.pop();
  }
}

function walkObject(walk: Walk, input: object, depth: number): JsonValue | undefined {
  // Nearly every result is made of object literals and arrays: one prototype check sends them to
  // their copy past the type checks below. A boxed primitive or binary data given a plain prototype
  // still takes them: a boxed string copied key by key would reach the model one character per key,
  // past the redaction detectors, and binary data one index per key.
  const proto: unknown = Object.getPrototypeOf(input);
  if (proto === Array.prototype && Array.isArray(input)) return walkArray(walk, input, depth);
  if (
    (proto === Object.prototype || proto === null) &&
    !walk.prototypeHasKeys &&
    !("toJSON" in input) &&
    !types.isBoxedPrimitive(input) &&
    !ArrayBuffer.isView(input)
  ) {
    // `for...in` is the fastest listing over objects of one shape; with nothing enumerable on the
    // prototype chain it lists the object's own enumerable keys, as `Object.keys` does.
    const out: Record<string, JsonValue> = {};
    for (const key in input) copyKey(walk, out, input, key, depth);
    return out;
  }
  if (input instanceof Date) return Number.isNaN(input.getTime()) ? null : input.toISOString();
  if (input instanceof Error) return { error: errorTypeName(input) };
  if (ArrayBuffer.isView(input) || input instanceof ArrayBuffer) return describeBinary(input);
  const boxed = unbox(input);
  if (boxed !== NOT_BOXED) return primitiveSafe(boxed) ?? null;
  if (Array.isArray(input)) return walkArray(walk, input, depth);
  if (input instanceof Map) {
    const keys = [...input.keys()];
    if (keys.every((k) => typeof k === "string" || typeof k === "number")) {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of input) {
        const safe = walkValue(walk, v, depth + 1);
        if (safe !== undefined) setOwn(out, String(k), safe);
      }
      return out;
    }
    return [...input].map(([k, v]) => [walkValue(walk, k, depth + 1) ?? null, walkValue(walk, v, depth + 1) ?? null]);
  }
  if (input instanceof Set) return [...input].map((v) => walkValue(walk, v, depth + 1) ?? null);
  const toJSON = (input as { toJSON?: unknown }).toJSON;
  // depth + 1: a toJSON that returns a fresh object with its own toJSON must not recurse unbounded.
  if (typeof toJSON === "function") return walkValue(walk, toJSON.call(input), depth + 1);
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(input)) copyKey(walk, out, input, key, depth);
  return out;
}

function walkArray(walk: Walk, input: unknown[], depth: number): JsonValue[] {
  // Indexes, not the iterator: holes read as undefined (null in JSON) and the walk stops at the cap.
  const length = input.length;
  // One item of slack: a snapshot already cut (its items plus the marker) passes through unchanged.
  const kept = length <= walk.maxArrayItems + 1 ? length : walk.maxArrayItems;
  const out: JsonValue[] = [];
  for (let i = 0; i < kept; i++) {
    const safe = walkValue(walk, input[i], depth + 1);
    out.push(safe === undefined ? null : safe);
  }
  if (length > kept) out.push(`[… ${length - kept} more items]`);
  return out;
}

/** Copies `input[key]` onto `out`; a getter that throws leaves `"[Unreadable]"`. */
function copyKey(walk: Walk, out: Record<string, JsonValue>, input: object, key: string, depth: number): void {
  let item: unknown;
  try {
    item = (input as Record<string, unknown>)[key];
  } catch {
    setOwn(out, key, "[Unreadable]");
    return;
  }
  const safe = walkValue(walk, item, depth + 1);
  if (safe !== undefined) setOwn(out, key, safe);
}

function hasEnumerableKey(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/** Assigns an own key; a plain assignment to `__proto__` would change the prototype and drop the key. */
function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function fastReplacer(this: unknown, key: string, value: unknown): unknown {
  switch (typeof value) {
    case "bigint":
    case "symbol":
    case "function":
      throw FALLBACK;
    case "object":
      if (value === null) return value;
      // A huge or sparse array: the native path would render every hole.
      if (Array.isArray(value)) {
        if (value.length > FAST_MAX_ARRAY) throw FALLBACK;
        return value;
      }
      if (value instanceof Map || value instanceof Set || value instanceof Error || ArrayBuffer.isView(value))
        throw FALLBACK;
      // Buffer#toJSON has already run and made a byte array of it; render the size marker instead.
      if ((value as { type?: unknown }).type === "Buffer" && ArrayBuffer.isView((this as Record<string, unknown>)[key]))
        throw FALLBACK;
      return value;
    default:
      return value;
  }
}
const FALLBACK = Symbol("fallback");
const FAST_MAX_ARRAY = 100_001;

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
