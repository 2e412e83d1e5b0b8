import { Buffer } from "node:buffer";

/** Deeper values take the exact path. */
const MAX_DEPTH = 8;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A text JSON writes as it is, one byte per character: printable ASCII but `"` and `\\`. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Bytes of a text's JSON (quotes left out), at most: its length when it is plain ASCII, else six
 * bytes per UTF-16 unit (an escape such as `\u0001` is six bytes, any other unit three at most).
 */
const textBytesAtMost = (text: string): number => (PLAIN_ASCII.test(text) ? text.length : 6 * text.length);

/**
 * The longest JSON of a number: a sign, `0.00000` and 17 significant digits (`-0.0000013061519997984816`,
 * 25 characters); the exponent form is shorter (`-1.2345678901234567e-308`) and a non-finite number is `null`.
 */
const NUMBER_BYTES_AT_MOST = 25;

/**
 * Bounds of the UTF-8 length of `value`'s compact JSON, walking no further than needed to know the
 * lower bound is over `limit` (then `undefined`, as for anything that is not plain JSON data). The
 * lower bound counts a character per UTF-16 unit, one per number and no escapes; the upper bound
 * counts each text by {@link textBytesAtMost} and each number {@link NUMBER_BYTES_AT_MOST}.
 */
function jsonBytesBounds(value: unknown, limit: number): { readonly low: number; readonly high: number } | undefined {
  let low = 0;
  let high = 0;
  const walk = (v: unknown, depth: number): boolean => {
    switch (typeof v) {
      case "string":
        low += v.length + 2;
        high += textBytesAtMost(v) + 2;
        return low <= limit;
      case "number":
        low += 1;
        high += NUMBER_BYTES_AT_MOST;
        return low <= limit;
      case "boolean":
        low += 1;
        high += 5;
        return low <= limit;
      case "object":
        break;
      default:
        return false;
    }
    if (v === null) {
      high += 4;
      return ++low <= limit;
    }
    if (depth >= MAX_DEPTH) return false;
    low += 2;
    high += 2;
    if (Array.isArray(v)) {
      if (v.length > 1) {
        low += v.length - 1; // commas
        high += v.length - 1;
      }
      if (low > limit) return false;
      for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1)) return false;
      return true;
    }
    if (!isPlainObject(v) || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    let comma = 0;
    for (const key in v) {
      low += key.length + 3 + comma; // quotes, colon, and a comma before all but the first
      high += textBytesAtMost(key) + 3 + comma;
      comma = 1;
      if (low > limit || !walk((v as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  try {
    return walk(value, 0) ? { low, high } : undefined;
  } catch {
    return undefined; // a throwing getter or proxy: the exact path handles it
  }
}

/**
 * True when the compact JSON of `value` certainly fits in `maxTokens` tokens, judged without a
 * tokenizer: its exact UTF-8 length is at most `maxTokens`, and every o200k_base or cl100k_base
 * token covers at least one byte (byte-level BPE; checked against the real tokenizer by
 * surely-fits.test.ts). Most tool results are small, and tokenizing even a small one costs more
 * than the rest of the call (bench `design-choices`); a `false` only means "count exactly".
 * Anything that is not plain JSON data (undefined, BigInt, Date, Map, class instances, `toJSON`,
 * deep or cyclic values) answers `false`. A value is stringified only when a walk that stops at
 * `maxTokens` characters has found it short enough and its upper bound is not.
 * @internal
 *
 * @example
 * ```ts
 * surelyFits({ total: 5 }, 1000); // true: {"total":5} is 11 bytes
 * ```
 */
export function surelyFits(value: unknown, maxTokens: number): boolean {
  const bounds = jsonBytesBounds(value, maxTokens);
  if (bounds === undefined) return false;
  // Why bounds first: stringifying the value to measure it cost as much as formatting it (a 1 KB
  // order through the full stack stringified its data twice, bench "tool-result-shapes"); a value whose
  // upper bound fits needs no text, and only one between the bounds is stringified.
  if (bounds.high <= maxTokens) return true;
  const text = JSON.stringify(value) as string | undefined;
  return text !== undefined && Buffer.byteLength(text, "utf8") <= maxTokens;
}
