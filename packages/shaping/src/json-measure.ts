import { isToolOutcome, type JsonValue } from "@needlework/core";

/** What one walk of a value found. @internal */
export interface JsonScan {
  /** Approximate length of the value's compact JSON (string escapes are not counted). */
  readonly chars: number;
  /**
   * True when the value is plain JSON that `JSON.stringify` renders faithfully: plain objects and
   * arrays of strings, finite numbers, booleans and null, no cycles, at most `maxDepth` levels.
   * Anything else (BigInt, Map, Date, class instances, `toJSON`, cycles, throwing getters, ...) must
   * go through `toJsonSafe` first.
   */
  readonly plain: boolean;
}

const NOT_PLAIN = Symbol("not-plain");

/**
 * Sets an own enumerable property, including one named `__proto__` (which plain assignment would
 * turn into a prototype change, silently losing the key).
 * @internal
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The length of a number's JSON text, without making the string: exact for integers, close for fractions. */
function numberLength(n: number): number {
  let a = n < 0 ? -n : n;
  let length = n < 0 ? 1 : 0;
  if (a >= 1e21 || (a < 1e-6 && a !== 0)) return length + 22; // exponent form
  if (!Number.isInteger(a)) {
    length += 4; // a dot and (commonly) two to three decimals
    a = Math.floor(a);
  }
  length++;
  while (a >= 10) {
    a /= 10;
    length++;
  }
  return length;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  // Outcomes inherit their marker from a prototype of their own but are plain data.
  return proto === Object.prototype || proto === null || isToolOutcome(value);
}

/**
 * One walk of any value: its JSON size and whether it is plain JSON. Stops at the first value that
 * is not plain (the caller converts and scans again), so it never recurses into cycles.
 * @internal
 */
export function scanJson(value: unknown, maxDepth = 64): JsonScan {
  const ancestors: object[] = [];
  let chars = 0;
  const walk = (v: unknown, depth: number): void => {
    switch (typeof v) {
      case "string":
        chars += v.length + 2;
        return;
      case "number":
        if (!Number.isFinite(v)) throw NOT_PLAIN;
        chars += numberLength(v);
        return;
      case "boolean":
        chars += v ? 4 : 5;
        return;
      case "object":
        break;
      default:
        throw NOT_PLAIN;
    }
    if (v === null) {
      chars += 4;
      return;
    }
    if (depth >= maxDepth || ancestors.includes(v)) throw NOT_PLAIN;
    ancestors.push(v);
    if (Array.isArray(v)) {
      chars += v.length === 0 ? 2 : v.length + 1;
      for (let i = 0; i < v.length; i++) walk(v[i], depth + 1);
    } else {
      if (!isPlainObject(v) || typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
      // for-in skips the key array Object.keys would allocate for each of many small objects.
      let count = 0;
      for (const key in v) {
        count++;
        chars += key.length + 3;
        walk((v as Record<string, unknown>)[key], depth + 1);
      }
      chars += count === 0 ? 2 : count + 1;
    }
    ancestors.pop();
  };
  try {
    walk(value, 0);
    return { chars, plain: true };
  } catch {
    // NOT_PLAIN, a throwing getter or proxy trap, or a stack overflow: toJsonSafe handles all of them.
    return { chars, plain: false };
  }
}

/**
 * The approximate compact-JSON length of a plain JSON value, walking no further than needed to
 * know it exceeds `cap` (then some number above `cap` is returned). Cost is O(min(size, cap)).
 * @internal
 */
export function measureJson(value: JsonValue, cap: number): number {
  let total = 0;
  const walk = (v: JsonValue): boolean => {
    if (typeof v === "string") {
      total += v.length + 2;
    } else if (typeof v === "number") {
      total += numberLength(v);
    } else if (typeof v === "boolean") {
      total += v ? 4 : 5;
    } else if (v === null) {
      total += 4;
    } else if (Array.isArray(v)) {
      total += v.length === 0 ? 2 : v.length + 1;
      for (let i = 0; i < v.length && total <= cap; i++) walk(v[i]!);
    } else {
      // Braces, then per entry its key, quotes, colon and a comma: one comma too many unless empty.
      let entries = 0;
      total += 2;
      for (const key in v) {
        entries++;
        total += key.length + 4;
        if (!walk(v[key]!)) break;
      }
      if (entries > 0) total--;
    }
    return total <= cap;
  };
  walk(value);
  return total;
}
