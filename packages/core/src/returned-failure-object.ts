// Whether one object a tool returned is a failure, by unambiguous markers only (DESIGN "Precision
// before reach"): a false alarm escalates a legitimate run, a miss stays readable in `data`.
// - Anywhere: a returned `Error`, a `Response` that is not ok.
// - At the top level: `ok: false`; `success: false` beside no domain data; a non-empty `error`/
//   `errors` shaped like an error (a message or a code, not a lint finding); an HTTP status ≥ 400 on
//   an object that is nothing but an error envelope; a JSend error; GraphQL `userErrors`; GitHub's
//   `{ message, documentation_url }`.
// - A list item of an undeclared batch: the same markers, on an item that holds nothing but its id
//   and the failure (a log hit's `error`, an audit entry's `success: false` are data).
// - A list item of a declared batch (an Elasticsearch bulk answer with `errors: true`, `responses`,
//   `compositeResponse`): any marker, and its HTTP status alone.
import {
  describeObject,
  type Found,
  fromError,
  fromStatus,
  isFetchResponse,
  own,
  type Plain,
} from "./returned-failure-describe.js";

/** How a list item is judged: `item` strictly (envelope-only), `declared` in a batch that says it is one. @internal */
export type Place = "top" | "item" | "declared";

const STATUS_KEYS = ["status", "statusCode", "httpStatus", "httpStatusCode", "status_code"] as const;
/** Keys of a failure envelope: an object made of these (and ids) says nothing but how a call went. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  ...STATUS_KEYS,
  "ok",
  "success",
  "error",
  "errors",
  "message",
  "msg",
  "code",
  "errorCode",
  "error_code",
  "error_description",
  "errorMessage",
  "error_message",
  "statusText",
  "statusMessage",
  "headers",
  "body",
  "data",
  "type",
  "title",
  "detail",
  "details",
  "reason",
  "hint",
  "suggestion",
  "retriable",
  "retryable",
  "transient",
  "retryAfter",
  "retryAfterMs",
  "requestId",
  "request_id",
  "traceId",
  "trace_id",
  "timestamp",
  "instance",
  "documentation_url",
  "doc_url",
  "more_info",
  "moreInfo",
]);
/** Keys an item of a batch is named by. @internal */
export const ID_KEYS = ["id", "referenceId", "_id", "key", "ref"] as const;
const ID_KEY_SET: ReadonlySet<string> = new Set(ID_KEYS);
/** Keys that make an object with a numeric `status` an HTTP response rather than a bare number. */
const RESPONSE_KEYS = ["body", "headers", "statusText", "error", "message", "detail", "title"] as const;
/** Keys of a finding in a report (a lint or spell-check result): its `errors` are data, not a failure. */
const FINDING_KEYS = [
  "line",
  "column",
  "col",
  "offset",
  "ruleId",
  "rule",
  "severity",
  "filePath",
  "file",
  "word",
  "suggestions",
  "position",
  "range",
  "loc",
] as const;
/** Siblings that make a top-level `errors` a report's tally, not a failure. */
const REPORT_KEYS = ["warnings", "errorCount", "warningCount", "messages", "valid"] as const;
/** Fields a failure's message or code may sit in. */
const ERROR_TEXT_KEYS = [
  "message",
  "msg",
  "code",
  "errorCode",
  "error_code",
  "type",
  "reason",
  "title",
  "detail",
  "error_description",
] as const;

function hasAny(o: Plain, keys: readonly string[]): boolean {
  for (const key of keys) if (own(o, key) !== undefined) return true;
  return false;
}

/** Every own key is an envelope key (or, for an item, its id): the object holds no domain data. */
function envelopeOnly(o: Plain, ids: boolean): boolean {
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    if (!ENVELOPE_KEYS.has(key) && !(ids && ID_KEY_SET.has(key))) return false;
  }
  return true;
}

function meaningful(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== "" && value !== 0;
}

/** An error object: a message or a code in it, and no sign of a report's finding. */
function errorObject(value: object): boolean {
  const o = value as Plain;
  if (hasAny(o, FINDING_KEYS)) return false;
  for (const key of ERROR_TEXT_KEYS) if (meaningful(own(o, key))) return true;
  return false;
}

/** Items of an `errors` list looked at: a list of errors is judged by its first few. */
const ERRORS_LOOKED_AT = 20;

/**
 * A non-empty `error` or `errors` shaped like an error: text, `true`, an object with a message or a
 * code, a list of such, or a field-to-messages map (Rails, Django, Shopify REST).
 */
function errorShaped(value: unknown): boolean {
  if (typeof value === "string") return value.trim() !== "";
  if (value === true) return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < Math.min(value.length, ERRORS_LOOKED_AT); i++) {
      const item: unknown = value[i];
      if (
        typeof item === "string" ? item.trim() !== "" : typeof item === "object" && item !== null && errorObject(item)
      )
        return true;
    }
    return false;
  }
  if (errorObject(value)) return true;
  if (hasAny(value as Plain, FINDING_KEYS)) return false;
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || ++n > ERRORS_LOOKED_AT) break;
    const field = (value as Plain)[key];
    if (typeof field === "string" && field.trim() !== "") return true;
    if (Array.isArray(field) && typeof field[0] === "string" && field[0].trim() !== "") return true;
  }
  return false;
}

function httpStatusIn(o: Plain): number | undefined {
  for (const key of STATUS_KEYS) {
    const value = own(o, key);
    if (typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  return undefined;
}

/** GraphQL mutation payloads' `userErrors` (Shopify and others): a non-empty list of `{ field, message }`. */
function userErrorsIn(o: Plain): readonly unknown[] | undefined {
  const list = own(o, "userErrors");
  return Array.isArray(list) && list.length > 0 && errorShaped(list) ? list : undefined;
}

/** Mutation payloads looked at under `data`: a response holds one or a few. */
const PAYLOADS_LOOKED_AT = 10;

/** `{ data: { productCreate: { userErrors: [...] } } }`: the first payload under `data` with user errors. */
function graphqlUserErrors(o: Plain): readonly unknown[] | undefined {
  const direct = userErrorsIn(o);
  if (direct !== undefined) return direct;
  const data = own(o, "data");
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  let n = 0;
  for (const key in data) {
    if (!Object.hasOwn(data, key) || ++n > PAYLOADS_LOOKED_AT) break;
    const payload = (data as Plain)[key];
    if (typeof payload === "object" && payload !== null && !Array.isArray(payload)) {
      const found = userErrorsIn(payload as Plain);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A GraphQL user-errors failure: the first error's code, else `INVALID_REQUEST` (they are input errors). @internal */
export function userErrorsFailure(list: readonly unknown[]): Found {
  const first = list[0];
  const named = typeof first === "object" && first !== null ? describeObject(first as Plain, undefined) : undefined;
  return {
    code: named !== undefined && named.code !== "TOOL_ERROR" ? named.code : "INVALID_REQUEST",
    retriable: false,
    explicit: false,
  };
}

/** JSend's error and fail envelopes, unmistakable only when the object holds nothing else. */
function jsendFailed(v: Plain, strict: boolean): boolean {
  const status = own(v, "status");
  if (status !== "error" && status !== "fail") return false;
  if (!strict) return true;
  for (const key in v)
    if (Object.hasOwn(v, key) && key !== "status" && key !== "message" && key !== "code" && key !== "data")
      return false;
  if (status === "error") return typeof own(v, "message") === "string";
  const data = own(v, "data");
  return typeof data === "object" && data !== null && !Array.isArray(data) && Object.keys(data).length > 0;
}

/**
 * A JSend failure (`{ status: "error", message }`, `{ status: "fail", data }`); `strict` (the default
 * detector) asks that the object hold nothing else. @internal
 */
export function jsendFailure(v: Plain, strict: boolean): Found | undefined {
  if (!jsendFailed(v, strict)) return undefined;
  const found = describeObject(v, undefined);
  return own(v, "status") === "fail" && found.code === "TOOL_ERROR" ? { ...found, code: "INVALID_REQUEST" } : found;
}

/** A numeric HTTP status ≥ 400, when the object is shaped like a response or an error envelope. */
function failedStatus(v: Plain, place: Place): number | undefined {
  const raw = own(v, "status");
  const status = typeof raw === "number" ? raw : httpStatusIn(v);
  if (status === undefined || status < 400 || status > 599 || !Number.isInteger(status) || httpStatusIn(v) !== status)
    return undefined;
  if (place === "declared") return status;
  if (!envelopeOnly(v, place === "item")) return undefined;
  // `status` alone is a number like any other; beside a response's fields (or, in a batch, an id), a status.
  if (typeof raw === "number" && !hasAny(v, RESPONSE_KEYS) && (place === "top" || !hasAny(v, ID_KEYS)))
    return undefined;
  return status;
}

/** Wrappers one level up (`{ result: { ok: false } }`): the object holds only this key and meta fields. */
const WRAPPER_KEYS = ["result", "response", "body", "payload", "output"] as const;

/**
 * Reads one object for failure signals (see the file's comment for the rules per place). `depth`
 * bounds how many wrappers are opened. @internal
 */
export function inspectObject(o: object, place: Place, depth = 0): Found | undefined {
  // Plain objects (nearly every result) skip the class checks; the reads below are named, not
  // keyed, so each costs a cached property miss on the success path (bench `returned-failures`).
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) {
    if (o instanceof Error) return fromError(o);
    if (isFetchResponse(o)) return o.ok ? undefined : fromStatus(o.status, o.headers, undefined);
  }
  const v = o as Plain;
  const strict = place !== "declared";
  // An item must hold nothing but its id and how it went; at the top level only `success` needs that.
  const itemOk = place !== "item" || envelopeOnly(v, true);
  let failed = itemOk && v.ok === false && Object.hasOwn(v, "ok");
  if (!failed && v.success === false && Object.hasOwn(v, "success"))
    failed = !strict || envelopeOnly(v, place === "item");
  if (!failed && itemOk) {
    const error = v.error;
    const errors = v.errors;
    failed =
      (error !== undefined && error !== null && Object.hasOwn(v, "error") && errorShaped(error)) ||
      (errors !== undefined &&
        errors !== null &&
        Object.hasOwn(v, "errors") &&
        errorShaped(errors) &&
        (place !== "top" || !hasAny(v, REPORT_KEYS)));
  }
  const rawStatus = v.status;
  if (!failed && rawStatus === "rejected" && Object.hasOwn(v, "status") && Object.hasOwn(v, "reason")) {
    const reason = v.reason;
    return reason instanceof Error ? fromError(reason) : { code: "TOOL_ERROR", retriable: false, explicit: false };
  }
  const status = failedStatus(v, place);
  if (failed || status !== undefined) return describeObject(v, status);
  if (place === "item") return undefined;
  if (typeof rawStatus === "string") {
    const jsend = jsendFailure(v, strict);
    if (jsend !== undefined) return jsend;
  }
  const userErrors = graphqlUserErrors(v);
  if (userErrors !== undefined) return userErrorsFailure(userErrors);
  if (
    typeof own(v, "documentation_url") === "string" &&
    typeof own(v, "message") === "string" &&
    envelopeOnly(v, false)
  )
    return describeObject(v, undefined); // GitHub's error body
  return place === "top" && depth < 2 ? unwrapOnce(v, depth) : undefined;
}

function unwrapOnce(v: Plain, depth: number): Found | undefined {
  let inner: unknown;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    if ((WRAPPER_KEYS as readonly string[]).includes(key)) {
      if (inner !== undefined) return undefined;
      inner = v[key];
    } else if (!ENVELOPE_KEYS.has(key) && !ID_KEY_SET.has(key) && key !== "jsonrpc") return undefined;
  }
  return typeof inner === "object" && inner !== null && !Array.isArray(inner)
    ? inspectObject(inner, "top", depth + 1)
    : undefined;
}
