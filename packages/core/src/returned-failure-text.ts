// What the model reads of a returned failure: fixed text per code, the value's own detail only where
// it is short, one line and reads like no internals or secret, and every failure code within the
// first characters (DESIGN "Many failures, one line").
import type { ReturnedFailure } from "./returned-failure.types.js";
import { type Found, own, type Plain } from "./returned-failure-describe.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";

// Text that reads like internals: stack frames, file paths, URLs, addresses, SQL, exception names,
// markup or JSON. Such text is never put in a message; the value itself stays in `data`.
const UNSAFE_DETAIL =
  /\bat\s+\S+\s+\(|\.(?:[cm]?[jt]sx?|py|rb|java|go|php|cs|rs)\b|node_modules|[\\/][\w.-]+[\\/]|:\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b\w*(?:Error|Exception)\s*:|[{}<>[\]`$]|\bE[A-Z]{4,}\b/;
const UNSAFE_DETAIL_ANY_CASE =
  /traceback|\b(?:select|insert|update|delete)\b.*\b(?:from|into|set|where|values)\b|\berror\s*:/i;

/** A short, one-line, plain text the model may read as a failure's detail; `undefined` if it is not safe. */
function safeDetail(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const trimmed = text.trim();
  if (trimmed.length < 2 || trimmed.length > 160 || /[\u0000-\u001f\u007f]/.test(trimmed)) return undefined;
  if (UNSAFE_DETAIL.test(trimmed) || UNSAFE_DETAIL_ANY_CASE.test(trimmed) || scrubSecrets(trimmed) !== trimmed)
    return undefined;
  return trimmed;
}

/** The value's own detail, safe to show: its `error`'s text or message, its first error's, its `message`. @internal */
export function detailOf(v: Plain): string | undefined {
  const error = own(v, "error");
  if (typeof error === "string") return safeDetail(error);
  if (typeof error === "object" && error !== null && !Array.isArray(error))
    return safeDetail(own(error as Plain, "message")) ?? safeDetail(own(error as Plain, "error_description"));
  const errors = own(v, "errors") ?? own(v, "userErrors");
  if (Array.isArray(errors) && errors.length > 0) {
    const first: unknown = errors[0];
    return typeof first === "string"
      ? safeDetail(first)
      : typeof first === "object" && first !== null
        ? safeDetail(own(first as Plain, "message"))
        : undefined;
  }
  const data = own(v, "data");
  if (typeof data === "object" && data !== null && !Array.isArray(data)) {
    for (const key in data) {
      const payload = (data as Plain)[key];
      const userErrors =
        typeof payload === "object" && payload !== null ? own(payload as Plain, "userErrors") : undefined;
      if (Array.isArray(userErrors) && typeof userErrors[0] === "object" && userErrors[0] !== null)
        return safeDetail(own(userErrors[0] as Plain, "message"));
      break;
    }
  }
  return safeDetail(own(v, "message"));
}

/** Characters of a message the code summary may take: the envelope's first 200 hold it with room to spare. */
export const CODE_SUMMARY_CHARS = 90;

/**
 * Every code of a set of failures with its count, most frequent first: `FORBIDDEN×5, TIMEOUT×4`.
 * Codes that do not fit in `budget` characters are counted, never dropped silently: `, +3 more codes`.
 * @internal
 *
 * @example
 * ```ts
 * summarizeCodes(["A", "A", "B"]); // "A×2, B"
 * ```
 */
export function summarizeCodes(codes: readonly string[], budget = CODE_SUMMARY_CHARS): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  const parts: string[] = [];
  let used = 0;
  for (const [i, [code, n]] of sorted.entries()) {
    const part = n > 1 ? `${code}×${n}` : code;
    const rest = sorted.length - i - 1;
    const tail = rest > 0 ? `, +${rest} more code${rest === 1 ? "" : "s"}`.length : 0;
    if (parts.length > 0 && used + 2 + part.length + tail > budget) {
      const left = sorted.length - i;
      parts.push(`+${left} more code${left === 1 ? "" : "s"}`);
      break;
    }
    parts.push(part);
    used += (parts.length > 1 ? 2 : 0) + part.length;
  }
  return parts.join(", ");
}

const TOOL_ERROR_SUGGESTION = "Do not report this call as done; tell the user what failed or try another way.";

/** The failure the model reads, from what the detector found and the value's safe detail. @internal */
export function toFailure(found: Found, detail: string | undefined): ReturnedFailure {
  const codes = found.errorCodes;
  const fixed =
    found.message ??
    (found.code === "TOOL_ERROR" ? "The tool returned a failure." : `The tool returned a failure (${found.code}).`);
  // Many codes: their summary first, so the first characters the model reads name every one.
  const head = codes === undefined ? fixed : `${codes.length} errors: ${summarizeCodes(codes)}. ${fixed}`;
  const redundant = detail !== undefined && detail.replace(/[\s.-]/g, "_").toUpperCase() === found.code;
  return {
    code: found.code,
    message: detail === undefined || redundant ? head : `${head} Detail: ${detail}${/[.!?]$/.test(detail) ? "" : "."}`,
    retriable: found.retriable,
    suggestion: found.suggestion ?? TOOL_ERROR_SUGGESTION,
    ...(found.retryAfterMs === undefined ? {} : { retryAfterMs: found.retryAfterMs }),
    ...(found.httpStatus === undefined ? {} : { httpStatus: found.httpStatus }),
  };
}
