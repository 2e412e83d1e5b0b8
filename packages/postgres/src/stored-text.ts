// PostgreSQL refuses two things JavaScript strings can hold: the NUL character (in `text`, and as
// `\u0000` in `jsonb`) and lone UTF-16 surrogates (`jsonb` rejects the escape; `text` would store
// garbage). A model or a tool can produce either, so every string the store writes goes through
// `escapeText` and every string it reads through `unescapeText`: each refused code unit, and the
// escape character itself, becomes U+E000 (a private-use character) followed by four hex digits.
// Strings without any of them (nearly all) are returned as they are, after one regex test.

const ESCAPE = "\uE000";
const NEEDS_ESCAPE = /[\u0000\uE000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TO_ESCAPE = /[\u0000\uE000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPED = /\uE000([0-9a-f]{4})/g;

/** A string PostgreSQL stores as written (see above). @internal */
export function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(TO_ESCAPE, (unit) => ESCAPE + unit.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** The string `escapeText` was given. @internal */
export function unescapeText(text: string): string {
  if (!text.includes(ESCAPE)) return text;
  return text.replace(ESCAPED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** `value` with every string in it (keys included) escaped: what `JSON.stringify` may send to jsonb. @internal */
export function escapeJson(value: unknown): unknown {
  return mapStrings(value, escapeText);
}

/** A value read from jsonb, its strings unescaped. @internal */
export function unescapeJson<T>(value: T): T {
  return mapStrings(value, unescapeText) as T;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const mapped = map(key);
    // An own key, even `__proto__`, stays a key.
    Object.defineProperty(out, mapped, {
      value: mapStrings(item, map),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * JSON text of a value with none of the refused code units, in its JSON text: JSON.stringify writes
 * NUL as `\u0000` and a lone surrogate as `\udXXX` (a pair stays raw), so a text without either
 * escape and without U+E000 needs no escaping. A backslash before them in a string (`\\u0000`)
 * only sends the value down the slow path.
 */
const MAY_NEED_ESCAPE = /\\u0000|\\ud[89a-f]|\uE000/i;

/** JSON text for a jsonb parameter: the value's strings escaped. @internal */
export function jsonParam(value: unknown): string {
  // One stringify when nothing needs escaping (nearly always), instead of copying the value first.
  const text = JSON.stringify(value);
  return text === undefined || !MAY_NEED_ESCAPE.test(text) ? text : JSON.stringify(escapeJson(value));
}
