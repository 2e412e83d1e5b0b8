import { mapThrownError } from "./error-mapping.js";
import { mapHttpStatus } from "./http-status.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";

/**
 * One failed item of a list inside a result: where it is (`index` in the list, and its `id` when
 * the item has one) and its stable code.
 *
 * @example
 * ```ts
 * const item: FailedItem = { index: 3, id: "c-4", code: "RATE_LIMITED" };
 * ```
 */
export interface FailedItem {
  /** The item's position in its list, from 0. */
  readonly index: number;
  /** The item's own `id` (or `referenceId`, `_id`, `key`), when it has a short one. */
  readonly id?: string | number;
  readonly code: string;
  /** Whether another attempt of this item may succeed. */
  readonly retriable?: boolean;
}

/**
 * A failure a tool *returned* (rather than threw), as a `failures` detector reports it. Every field
 * is optional: the code defaults to `TOOL_ERROR`, the message to fixed text for the code. A
 * `ToolFailure` (from `ToolResult.fail`) fits this shape too (`transient` is read as `retriable`).
 * With `items`, the failure is about items of a list: `partial` when some items succeeded.
 *
 * @example
 * ```ts
 * const failure: ReturnedFailure = { code: "CONTACT_LOCKED", message: "The contact is locked.", retriable: true };
 * ```
 */
export interface ReturnedFailure {
  /** A stable upper-snake code; anything else is shown as `TOOL_ERROR`. */
  readonly code?: string;
  /** What the model reads (secrets are scrubbed); fixed text per code when omitted. */
  readonly message?: string;
  /** Whether another attempt may succeed. Default `false`. */
  readonly retriable?: boolean;
  /** Read as `retriable` when that is not set (the `ToolFailure` spelling). */
  readonly transient?: boolean;
  /** A hint for the model on how to recover. */
  readonly suggestion?: string;
  /** How long to wait before another attempt (a `Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The failed items of a list in the result; the outcome is `partial` when some items succeeded. */
  readonly items?: readonly FailedItem[];
  /** How many items the list held (with `items`); all of them failed → `error`. */
  readonly total?: number;
  /** The field holding the list (`results`, `items`, ...), or `""` for a result that is a list. */
  readonly field?: string;
  /** The HTTP status the failure was read from (a `Response`, a `status` field), when it was. */
  readonly httpStatus?: number;
}

/**
 * The `failures` option of `@AgentFunction`: `"detect"` (the default, {@link detectFailure}),
 * `"off"` (every returned value is data), or your own detector returning a failure or `undefined`.
 *
 * @example
 * ```ts
 * const failures: FailuresOption = (value) =>
 *   (value as { state?: string }).state === "REJECTED" ? { code: "ORDER_REJECTED" } : undefined;
 * ```
 */
export type FailuresOption = "detect" | "off" | ((value: unknown) => ReturnedFailure | undefined);

/**
 * Formerly the number of items of one list the detector looked at. Every item is looked at now: a
 * failure at the end of a large result is a failure too, and the scan (about 13 ns per item) is a
 * few percent of the `JSON.stringify` of the same list.
 *
 * @deprecated Every item of a list is scanned; nothing reads this constant any more.
 *
 * @example
 * ```ts
 * MAX_SCANNED_ITEMS; // 1000, unused
 * ```
 */
export const MAX_SCANNED_ITEMS = 1000;
/**
 * The field whose array is scanned for failed items: the first of `results`, `items`, `data`,
 * `responses`, `compositeResponse`, `records` that holds an own array. Named reads: one cached
 * miss each on the success path.
 */
function listField(v: Plain): string | undefined {
  if (Array.isArray(v.results)) return Object.hasOwn(v, "results") ? "results" : undefined;
  if (Array.isArray(v.items)) return Object.hasOwn(v, "items") ? "items" : undefined;
  if (Array.isArray(v.data)) return Object.hasOwn(v, "data") ? "data" : undefined;
  if (Array.isArray(v.responses)) return Object.hasOwn(v, "responses") ? "responses" : undefined;
  if (Array.isArray(v.compositeResponse))
    return Object.hasOwn(v, "compositeResponse") ? "compositeResponse" : undefined;
  if (Array.isArray(v.records)) return Object.hasOwn(v, "records") ? "records" : undefined;
  return undefined;
}
/** Lists whose items are HTTP responses by name: an item's status alone says it failed. */
const RESPONSE_LISTS = new Set(["responses", "compositeResponse"]);
const STATUS_KEYS = ["status", "statusCode", "httpStatus", "httpStatusCode", "status_code"] as const;
/** Keys that make an object with a numeric status look like an HTTP response or a batch item. */
const RESPONSE_KEYS = ["body", "headers", "httpHeaders", "statusText", "error", "message", "referenceId"] as const;
/** Keys of request-log records: their numeric status is data, never a failure. */
const REQUEST_LOG_KEYS = ["path", "url", "uri", "method", "route"] as const;
const ID_KEYS = ["id", "referenceId", "_id", "key"] as const;

type Plain = Record<string, unknown>;

/** `o[key]` when it is an own property; the read comes first so the common miss costs one lookup. */
function own(o: Plain, key: string): unknown {
  const value = o[key];
  return value === undefined || !Object.hasOwn(o, key) ? undefined : value;
}

function hasAny(o: Plain, keys: readonly string[]): boolean {
  for (const key of keys) if (own(o, key) !== undefined) return true;
  return false;
}

function meaningful(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== "" && value !== 0;
}

/** A non-empty `error`: text, `true`, a non-empty list, or an object with something in it. */
function nonEmptyError(value: unknown): boolean {
  if (typeof value === "string") return value.trim() !== "";
  if (value === true) return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(meaningful);
  for (const key in value) if (Object.hasOwn(value, key) && meaningful((value as Plain)[key])) return true;
  return false;
}

function httpStatusIn(o: Plain): number | undefined {
  for (const key of STATUS_KEYS) {
    const value = own(o, key);
    if (typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  return undefined;
}

type ResponseClass = abstract new (...args: never[]) => object;
let responseClass: ResponseClass | null | undefined;

interface FetchResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers?: { get(name: string): string | null };
}

/** A WHATWG `Response` (undici's, node-fetch's, a polyfill's): recognized by its class name and fields. */
function isFetchResponse(value: object): value is FetchResponseLike {
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

/** A code the value names itself (`CONTACT_LOCKED`, Slack's `channel_not_found`), upper-snake; never a secret. */
function codeFrom(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length < 2 || value.length > 48 || !CODE_TEXT.test(value)) return undefined;
  if (scrubSecrets(value) !== value) return undefined;
  return value.replace(/[.-]/g, "_").toUpperCase();
}

/** What the detector read from one object, before any text is made. */
interface Found {
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
}

/** The failure an HTTP status stands for, by core's `mapHttpStatus`; `wait` is the value's own Retry-After. */
function fromStatus(status: number, headers: unknown, wait: number | undefined): Found {
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

function fromError(error: Error): Found {
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
 * Reads one object for failure signals: a `Response` with `ok: false`, a returned `Error`, `ok: false`,
 * `success: false`, a non-empty `error` or `errors`, an HTTP status ≥ 400 on a response-shaped
 * object (for a list item, an item with an id is enough; in a list of `responses`, the status
 * alone), a rejected `Promise.allSettled` entry.
 */
function inspectObject(o: object, place: "top" | "item" | "response"): Found | undefined {
  // Plain objects (nearly every result) skip the class checks; the reads below are named, not
  // keyed, so each costs a cached property miss on the success path (bench `returned-failures`).
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) {
    if (o instanceof Error) return fromError(o);
    if (isFetchResponse(o)) {
      if (o.ok) return undefined;
      return fromStatus(o.status, o.headers, undefined);
    }
  }
  const v = o as Plain;
  let failed = (v.ok === false && Object.hasOwn(v, "ok")) || (v.success === false && Object.hasOwn(v, "success"));
  if (!failed) {
    const error = v.error;
    const errors = v.errors;
    failed =
      (error !== undefined && error !== null && Object.hasOwn(v, "error") && nonEmptyError(error)) ||
      (errors !== undefined && errors !== null && Object.hasOwn(v, "errors") && nonEmptyError(errors));
  }
  const rawStatus = v.status;
  if (!failed && rawStatus === "rejected" && Object.hasOwn(v, "status") && Object.hasOwn(v, "reason")) {
    const reason = v.reason;
    return reason instanceof Error ? fromError(reason) : { code: "TOOL_ERROR", retriable: false, explicit: false };
  }
  let status =
    typeof rawStatus === "number"
      ? rawStatus
      : typeof v.statusCode === "number" || typeof v.httpStatus === "number" || typeof v.httpStatusCode === "number"
        ? httpStatusIn(v)
        : typeof v.status_code === "number"
          ? httpStatusIn(v)
          : undefined;
  if (status !== undefined && (status < 400 || status > 599 || !Number.isInteger(status) || httpStatusIn(v) !== status))
    status = undefined;
  if (!failed) {
    if (status === undefined || hasAny(v, REQUEST_LOG_KEYS)) return undefined;
    if (place !== "response" && !hasAny(v, RESPONSE_KEYS) && (place === "top" || !hasAny(v, ID_KEYS))) return undefined;
  }
  return describeObject(v, status);
}

/**
 * Words by which a failure value says it is temporary, in a code (`SERVICE_BUSY`, `LOCK_TIMEOUT`) or a
 * message ("service unavailable, try again"). A value that also says it is invalid, rejected, denied
 * or not found is not taken as temporary.
 */
const TEMPORARY =
  /\b(?:busy|locked|lock timeout|timed? ?out|timeout|unavailable|temporar(?:y|ily)|try again|retry later|rate limit(?:ed)?|throttl(?:ed|ing)|too many requests|overloaded|deadlock(?:ed)?)\b/i;
const LASTING = /\b(?:invalid|not valid|rejected|denied|forbidden|not found|unauthori[sz]ed|not permitted)\b/i;

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
    for (const item of errors.slice(0, 5)) {
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

/** The code, retriability and wait of an object known to have failed. */
function describeObject(v: Plain, status: number | undefined): Found {
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
  const numericCode = own(v, "code") ?? (errorObject ? own(errorObject, "code") : undefined);
  if (status === undefined && typeof numericCode === "number" && numericCode >= 400 && numericCode <= 599)
    status = numericCode;
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
  if (code === undefined)
    return {
      ...base,
      retriable,
      explicit: typeof said === "boolean",
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  return {
    code,
    retriable,
    explicit: typeof said === "boolean",
    ...(base.notApplied === true ? { notApplied: true } : {}),
    ...(base.httpStatus === undefined ? {} : { httpStatus: base.httpStatus }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

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

function detailOf(v: Plain): string | undefined {
  const error = own(v, "error");
  if (typeof error === "string") return safeDetail(error);
  if (typeof error === "object" && error !== null && !Array.isArray(error))
    return safeDetail(own(error as Plain, "message")) ?? safeDetail(own(error as Plain, "error_description"));
  const errors = own(v, "errors");
  if (Array.isArray(errors) && errors.length > 0) {
    const first: unknown = errors[0];
    return typeof first === "string"
      ? safeDetail(first)
      : typeof first === "object" && first !== null
        ? safeDetail(own(first as Plain, "message"))
        : undefined;
  }
  return safeDetail(own(v, "message"));
}

const TOOL_ERROR_SUGGESTION = "Do not report this call as done; tell the user what failed or try another way.";

function toFailure(found: Found, detail: string | undefined): ReturnedFailure {
  const head =
    found.message ??
    (found.code === "TOOL_ERROR" ? "The tool returned a failure." : `The tool returned a failure (${found.code}).`);
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

function idOf(item: object): string | number | undefined {
  for (const key of ID_KEYS) {
    const id = own(item as Plain, key);
    if (typeof id === "number" && Number.isFinite(id)) return id;
    if (
      typeof id === "string" &&
      id.length > 0 &&
      id.length <= 64 &&
      /^[\w.:@/-]+$/.test(id) &&
      scrubSecrets(id) === id
    )
      return id;
  }
  return undefined;
}

/** An Elasticsearch-bulk-style item, `{ index: { _id, status, error } }`: the one object it wraps. */
function unwrapped(item: object): object {
  if (item instanceof Error || Array.isArray(item)) return item;
  const keys = Object.keys(item);
  const inner = keys.length === 1 ? (item as Plain)[keys[0]!] : undefined;
  return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? inner : item;
}

function countCodes(items: readonly FailedItem[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.code, (counts.get(item.code) ?? 0) + 1);
  return [...counts].map(([code, n]) => (n > 1 ? `${code} x${n}` : code)).join(", ");
}

function scanList(list: readonly unknown[], field: string, unwrap: boolean): ReturnedFailure | undefined {
  const n = list.length;
  const responses = RESPONSE_LISTS.has(field);
  let failed: FailedItem[] | undefined;
  for (let i = 0; i < n; i++) {
    const item = list[i];
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    const target = unwrap ? unwrapped(item) : item;
    const found = inspectObject(target, responses ? "response" : "item");
    if (found === undefined) continue;
    const id = idOf(target) ?? (target === item ? undefined : idOf(item));
    (failed ??= []).push({
      index: i,
      code: found.code,
      retriable: found.retriable,
      ...(id === undefined ? {} : { id }),
    });
  }
  if (failed === undefined) return undefined;
  const where = field === "" ? "the list" : `'${field}'`;
  const codes = countCodes(failed);
  const all = failed.length === list.length;
  const distinct = new Set(failed.map((f) => f.code));
  return {
    code: all ? (distinct.size === 1 ? failed[0]!.code : "BATCH_FAILED") : "PARTIAL_FAILURE",
    message: all
      ? `All ${list.length} items in ${where} failed: ${codes}.`
      : `Some items failed: ${codes} (${failed.length} of ${list.length} in ${where}); the others succeeded.`,
    retriable: failed.some((f) => f.retriable === true),
    suggestion: all
      ? "Nothing in this batch was done; tell the user, or retry only if the codes allow it."
      : "Only the listed items failed: retry or report those, and do not redo the ones that succeeded.",
    items: failed,
    total: list.length,
    field,
  };
}

/**
 * True when one list item fails by the default detector's rules (`{ ok: false }`, a non-empty
 * `error`, an HTTP status ≥ 400 with an id, ...): truncation keeps such items. @internal
 *
 * @example
 * ```ts
 * itemFails({ id: "c2", status: 403 }); // true
 * ```
 */
export function itemFails(item: unknown): boolean {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
  try {
    return inspectObject(item, "item") !== undefined;
  } catch {
    return false;
  }
}

/**
 * What the default detector finds in a returned value, with whether its `retriable` was said by
 * the value itself. @internal
 */
export interface Detection {
  readonly failure: ReturnedFailure;
  readonly explicit: boolean;
  /** The status or error proves the request was not applied (`effect: "none"`): safe to repeat. */
  readonly notApplied?: boolean;
}

/**
 * {@link detectFailure} with the provenance of `retriable`. `lists: false` looks at the top level
 * only (what a retry decision needs: a batch is never retried whole). @internal
 */
export function detectReturnedFailure(value: unknown, lists = true): Detection | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    if (Array.isArray(value)) {
      if (!lists) return undefined;
      const failure = scanList(value, "", false);
      return failure === undefined ? undefined : { failure, explicit: false };
    }
    const v = value as Plain;
    const esBulk = v.errors === true && Object.hasOwn(v, "errors");
    if (!esBulk) {
      const found = inspectObject(value, "top");
      if (found !== undefined) {
        const detail = found.message === undefined || found.httpStatus !== undefined ? detailOf(v) : undefined;
        return {
          failure: toFailure(found, isFetchResponse(value) ? undefined : detail),
          explicit: found.explicit,
          notApplied: found.notApplied === true,
        };
      }
    }
    if (!lists) return undefined;
    const field = listField(v);
    if (field !== undefined) {
      const failure = scanList(v[field] as unknown[], field, esBulk);
      if (failure !== undefined) return { failure, explicit: false };
    }
    if (esBulk)
      return {
        failure: toFailure({ code: "TOOL_ERROR", retriable: false, explicit: false }, undefined),
        explicit: false,
      };
    return undefined;
  } catch {
    // A hostile value (a proxy, a throwing getter) is data as far as detection goes; the snapshot
    // of the outcome deals with it.
    return undefined;
  }
}

/**
 * The default detector of returned failures (`@AgentFunction({ failures: "detect" })`): a cheap
 * check of the top-level value, never a deep walk. A failure is a `Response` with `ok: false`, a
 * returned `Error`, `{ ok: false }`, `{ success: false }`, a non-empty `error` (text, `true`, an
 * object with something in it) or `errors` list, an HTTP status ≥ 400 on a response-shaped object
 * (`{ statusCode: 503, body }`); and, in the first list of the result (the value itself or its
 * `results`, `items`, `data`, `responses`, `compositeResponse`, `records`; every item of it),
 * items that fail by the same rules or carry an HTTP status ≥ 400 (batch and composite APIs).
 * `{ error: null }`, `{ errors: [] }`, `{ ok: true, error: "" }` and a business
 * `status: "failed"` are data. The message is fixed text per code plus, where it is short, one line
 * and reads like no internals or secret, the value's own detail.
 *
 * @example
 * ```ts
 * detectFailure({ ok: false, error: "channel_not_found" })?.code; // "CHANNEL_NOT_FOUND"
 * detectFailure({ error: null }); // undefined
 * ```
 */
export function detectFailure(value: unknown): ReturnedFailure | undefined {
  return detectReturnedFailure(value)?.failure;
}
