import { Buffer } from "node:buffer";

/** Deeper values take the exact path. */
const MAX_DEPTH = 8;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `value` is plain JSON data whose compact JSON has at most `limit` characters, walking no
 * further than needed to know it has more (a lower bound: numbers count one character, escapes
 * none). Every character is at least one UTF-8 byte, so a longer value cannot be within a byte
 * bound of `limit`.
 */
function shortPlainJson(value: unknown, limit: number): boolean {
  let chars = 0;
  const walk = (v: unknown, depth: number): boolean => {
    switch (typeof v) {
      case "string":
        chars += v.length + 2;
        return chars <= limit;
      case "number":
      case "boolean":
        chars += 1;
        return chars <= limit;
      case "object":
        break;
      default:
        return false;
    }
    if (v === null) return ++chars <= limit;
    if (depth >= MAX_DEPTH) return false;
    chars += 2;
    if (Array.isArray(v)) {
      if (v.length > 1) chars += v.length - 1; // commas
      if (chars > limit) return false;
      for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1)) return false;
      return true;
    }
    if (!isPlainObject(v) || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    let comma = 0;
    for (const key in v) {
      chars += key.length + 3 + comma; // quotes, colon, and a comma before all but the first
      comma = 1;
      if (chars > limit || !walk((v as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  try {
    return walk(value, 0);
  } catch {
    return false; // a throwing getter or proxy: the exact path handles it
  }
}

/**
 * True when the compact JSON of `value` certainly fits in `maxTokens` tokens, judged without a
 * tokenizer: its exact UTF-8 length is at most `maxTokens`, and every o200k_base or cl100k_base
 * token covers at least one byte (byte-level BPE; checked against the real tokenizer by
 * surely-fits.test.ts). Most tool results are small, and tokenizing even a small one costs more
 * than the rest of the call (bench `design-choices`); a `false` only means "count exactly".
 * Anything that is not plain JSON data (undefined, BigInt, Date, Map, class instances, `toJSON`,
 * deep or cyclic values) answers `false`. A value is stringified only once a walk that stops at
 * `maxTokens` characters has found it short enough.
 * @internal
 *
 * @example
 * ```ts
 * surelyFits({ total: 5 }, 1000); // true: {"total":5} is 11 bytes
 * ```
 */
export function surelyFits(value: unknown, maxTokens: number): boolean {
  if (!shortPlainJson(value, maxTokens)) return false;
  const text = JSON.stringify(value) as string | undefined;
  return text !== undefined && Buffer.byteLength(text, "utf8") <= maxTokens;
}
