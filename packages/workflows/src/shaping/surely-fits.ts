/** JSON text of any finite number is at most this long ("-1.2345678901234567e-308"). */
const MAX_NUMBER_CHARS = 24;
/** Deeper values take the exact path. */
const MAX_DEPTH = 8;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * True when the compact JSON of `value` certainly fits in `maxTokens` tokens, judged without a
 * tokenizer: a BPE token is at least one UTF-8 byte, and a UTF-16 unit of a string takes at most six
 * bytes in JSON (a `\u` escape). Most tool results are small, and tokenizing even a small one costs
 * more than the rest of the call (bench `design-choices`); a `false` only means "count exactly".
 * Anything that is not plain JSON data (undefined, BigInt, Date, Map, class instances, `toJSON`,
 * deep or cyclic values) and anything whose bound exceeds the budget answers `false`. The walk stops
 * as soon as the bound is exceeded, so it costs at most `maxTokens / 2` steps.
 * @internal
 *
 * @example
 * ```ts
 * surelyFits({ total: 5 }, 1000); // true: at most 6 * 5 + 2 + 3 + 24 bytes
 * ```
 */
export function surelyFits(value: unknown, maxTokens: number): boolean {
  let bytes = 0;
  const walk = (v: unknown, depth: number): boolean => {
    switch (typeof v) {
      case "string":
        bytes += 6 * v.length + 2;
        return bytes <= maxTokens;
      case "number":
        bytes += MAX_NUMBER_CHARS;
        return bytes <= maxTokens;
      case "boolean":
        bytes += 5;
        return bytes <= maxTokens;
      case "object":
        break;
      default:
        return false;
    }
    if (v === null) {
      bytes += 4;
      return bytes <= maxTokens;
    }
    if (depth >= MAX_DEPTH) return false;
    bytes += 2;
    if (Array.isArray(v)) {
      bytes += v.length; // commas
      if (bytes > maxTokens) return false;
      for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1)) return false;
      return true;
    }
    if (!isPlainObject(v) || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    for (const key of Object.keys(v)) {
      bytes += 6 * key.length + 4; // quotes, colon, comma
      if (bytes > maxTokens || !walk((v as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  try {
    return walk(value, 0);
  } catch {
    return false; // a throwing getter or proxy: the exact path handles it
  }
}
