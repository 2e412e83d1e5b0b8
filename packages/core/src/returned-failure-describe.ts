// What a failed value says about itself: its code, whether another attempt may succeed, its wait and
// the HTTP status it was read from. Used once the detector (returned-failure-object.ts) has decided
// the value failed; nothing here decides *whether* it failed.
import { mapThrownError } from "./error-mapping.js";
import { mapHttpStatus } from "./http-status.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";

/** A plain record read by own properties only. @internal */
export type Plain = Record<string, unknown>;

/** `o[key]` when it is an own property; the read comes first so the common miss costs one lookup. @internal */
export function own(o: Plain, key: string): unknown {
  const value = o[key];
  return value === undefined || !Object.hasOwn(o, key) ? undefined : value;
}

/** What the detector read from one object, before any text is made. @internal */
export interface Found {
  readonly code: string;
  readonly retriable: boolean;
  /** The value said `retriable`/`transient` itself (else it was inferred from a status). */
  readonly explicit: boolean;
  /** The status (or error) proves the request was not applied (429, 503, 408, ...: `effect: "none"`). */
  readonly notApplied?: boolean;
  readonly httpStatus?: number;
  readonly retryAfterMs?: number;
  /** Fixed text and suggestion of the code, when a status or a thrown-error mapping gave them. */
  readonly message?: string;
  readonly suggestion?: string;
  /** Codes of the value's own `errors` list, counted (a result with many errors states them all). */
  readonly errorCodes?: readonly string[];
}

type ResponseClass = abstract new (...args: never[]) => object;
let responseClass: ResponseClass | null | undefined;

/** The fields of a WHATWG `Response` the detector reads. @internal */
export interface FetchResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers?: { get(name: string): string | null };
}

/** A WHATWG `Response` (undici's, node-fetch's, a polyfill's): recognized by its class name and fields. @internal */
export function isFetchResponse(value: object): value is FetchResponseLike {
  // Node defines `Response` as a lazy global: read once, here, when a class instance first comes by.
  responseClass ??= (globalThis as { Response?: ResponseClass }).Response ?? null;
  if (responseClass !== null && value instanceof responseClass) return true;
  const v = value as Partial<FetchResponseLike>;
  return value.constructor?.name === "Response" && typeof v.ok === "boolean" && typeof v.status === "number";
}

/** Milliseconds from a Retry-After value: seconds or an HTTP date. */
function retryAfterMs(raw: unknown, now = Date.now()): number | undefined {
  if (typeof raw === "number") return raw >= 0 ? raw * 1000 : undefined;
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function headerOf(headers: unknown, name: string): unknown {
  if (typeof headers !== "object" || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === "function") return get.call(headers, name);
  return own(headers as Plain, name) ?? own(headers as Plain, name.toLowerCase());
}

const CODE_TEXT = /^[A-Za-z]+(?:[_.-][A-Za-z0-9]{1,20}){0,7}$/;

/** A code the value names itself (`CONTACT_LOCKED`, Slack's `channel_not_found`), upper-snake; never a secret. @internal */
export function codeFrom(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length < 2 || value.length > 48 || !CODE_TEXT.test(value)) return undefined;
  if (scrubSecrets(value) !== value) return undefined;
  return value.replace(/[.-]/g, "_").toUpperCase();
}

/** The failure an HTTP status stands for, by core's `mapHttpStatus`; `wait` is the value's own Retry-After. @internal */
export function fromStatus(status: number, headers: unknown, wait: number | undefined): Found {
  let mapped = mapHttpStatus(status, headers);
  if (mapped?.retriable && mapped.retryAfterMs === undefined && wait !== undefined)
    mapped = mapHttpStatus(status, { "retry-after-ms": String(wait) }) ?? mapped;
  if (mapped === undefined)
    return {
      code: "UNEXPECTED_RESPONSE",
      retriable: false,
      explicit: false,
      httpStatus: status,
      message: `The upstream service gave an unexpected answer (HTTP ${status}).`,
    };
  return {
    code: mapped.code,
    retriable: mapped.retriable,
    explicit: false,
    notApplied: mapped.effect === "none",
    httpStatus: status,
    message: mapped.message,
    ...(mapped.suggestion === undefined ? {} : { suggestion: mapped.suggestion }),
    ...(mapped.retryAfterMs === undefined ? {} : { retryAfterMs: mapped.retryAfterMs }),
  };
}

/** A returned `Error`, mapped as a thrown one would be (type name only, never its text). @internal */
export function fromError(error: Error): Found {
  const mapped = mapThrownError(error);
  return {
    code: mapped.code,
    retriable: mapped.retriable,
    explicit: false,
    notApplied: mapped.effect === "none",
    message: mapped.message,
    ...(mapped.suggestion === undefined ? {} : { suggestion: mapped.suggestion }),
    ...(mapped.retryAfterMs === undefined ? {} : { retryAfterMs: mapped.retryAfterMs }),
  };
}

/**
 * Words by which a failure value says it is temporary, in a code (`SERVICE_BUSY`, `LOCK_TIMEOUT`) or a
 * message ("service unavailable, try again"). A value that also says it is invalid, rejected, denied
 * or not found is not taken as temporary.
 */
const TEMPORARY =
  /\b(?:busy|locked|lock timeout|timed? ?out|timeout|unavailable|temporar(?:y|ily)|try again|retry later|rate limit(?:ed)?|throttl(?:ed|ing)|too many requests|overloaded|deadlock(?:ed)?)\b/i;
const LASTING = /\b(?:invalid|not valid|rejected|denied|forbidden|not found|unauthori[sz]ed|not permitted)\b/i;

/** Items of an `errors` list read for words and codes: a bounded few. */
const ERRORS_READ = 50;

/** Whether the failure's code or messages (its own, its `error`'s, the first few `errors`') say it is temporary. */
function saysTemporary(v: Plain, code: string | undefined, errorObject: Plain | undefined): boolean {
  const words: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === "string" && value.length <= 500) words.push(value.replace(/[_.-]+/g, " "));
  };
  add(code);
  add(own(v, "message"));
  add(own(v, "error"));
  if (errorObject) {
    add(own(errorObject, "message"));
    add(own(errorObject, "code"));
  }
  const errors = own(v, "errors");
  if (Array.isArray(errors))
    for (let i = 0; i < Math.min(errors.length, 5); i++) {
      const item: unknown = errors[i];
      add(item);
      if (typeof item === "object" && item !== null) {
        add(own(item as Plain, "message"));
        add(own(item as Plain, "code"));
        add(own(item as Plain, "errorCode"));
      }
    }
  const text = words.join(" ");
  return TEMPORARY.test(text) && !LASTING.test(text);
}

/** The codes of the value's own `errors` list (at most {@link ERRORS_READ} items), when two or more carry one. */
function errorsListCodes(v: Plain): string[] | undefined {
  const errors = own(v, "errors");
  if (!Array.isArray(errors) || errors.length < 2) return undefined;
  const codes: string[] = [];
  for (let i = 0; i < Math.min(errors.length, ERRORS_READ); i++) {
    const item: unknown = errors[i];
    if (typeof item !== "object" || item === null) continue;
    const code = codeFrom(own(item as Plain, "code")) ?? codeFrom(own(item as Plain, "errorCode"));
    if (code !== undefined) codes.push(code);
  }
  return codes.length >= 2 ? codes : undefined;
}

/** `"404"`: GitHub states its status as text. */
function statusNumber(value: unknown): number | undefined {
  const n = typeof value === "string" && /^[1-5]\d\d$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined;
}

/** The code, retriability and wait of an object known to have failed. @internal */
export function describeObject(v: Plain, status: number | undefined): Found {
  const error = own(v, "error");
  const errorObject =
    typeof error === "object" && error !== null && !Array.isArray(error) ? (error as Plain) : undefined;
  const code =
    codeFrom(own(v, "code")) ??
    codeFrom(own(v, "errorCode")) ??
    codeFrom(own(v, "error_code")) ??
    (errorObject
      ? (codeFrom(own(errorObject, "code")) ?? codeFrom(own(errorObject, "type")))
      : typeof error === "string" && error.includes("_")
        ? codeFrom(error) // Slack's `error: "channel_not_found"`; a bare word is a detail, not a code
        : undefined);
  status ??=
    statusNumber(own(v, "code")) ??
    (errorObject ? statusNumber(own(errorObject, "code")) : undefined) ??
    statusNumber(own(v, "status"));
  const said = own(v, "retriable") ?? own(v, "retryable") ?? own(v, "transient");
  const headers = own(v, "headers");
  const ownWait =
    typeof own(v, "retryAfterMs") === "number"
      ? (v.retryAfterMs as number)
      : (retryAfterMs(own(v, "retryAfter")) ?? retryAfterMs(headerOf(headers, "retry-after")));
  const base: Found =
    status === undefined
      ? { code: "TOOL_ERROR", retriable: false, explicit: false }
      : fromStatus(status, headers, ownWait);
  const wait = base.retryAfterMs ?? ownWait;
  // Unsaid and with no status, the value's own words decide: a failure that calls itself busy,
  // locked, unavailable or timed out, or says to try again, passes; telling the model
  // `retriable: false` there would be a claim the value contradicts.
  const retriable =
    typeof said === "boolean" ? said : base.retriable || (status === undefined && saysTemporary(v, code, errorObject));
  const errorCodes = errorsListCodes(v);
  const listed = errorCodes === undefined ? {} : { errorCodes };
  if (code === undefined)
    return {
      ...base,
      retriable,
      explicit: typeof said === "boolean",
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
      ...listed,
    };
  return {
    code,
    retriable,
    explicit: typeof said === "boolean",
    ...(base.notApplied === true ? { notApplied: true } : {}),
    ...(base.httpStatus === undefined ? {} : { httpStatus: base.httpStatus }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
    ...listed,
  };
}
