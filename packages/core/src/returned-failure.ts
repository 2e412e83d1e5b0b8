import { describeObject, type Found, isFetchResponse, type Plain } from "./returned-failure-describe.js";
import { scanLists } from "./returned-failure-lists.js";
import { inspectObject, jsendFailure } from "./returned-failure-object.js";
import { detailOf, toFailure } from "./returned-failure-text.js";

import type { ReturnedFailure } from "./returned-failure.types.js";

export type { FailedItem, ReturnedFailure } from "./returned-failure.types.js";

/**
 * The `failures` option of `@AgentFunction`: `"detect"` (the default, {@link detectFailure}),
 * `"off"` (every returned value is data), `"jsend"` (the default rules, and a JSend `status:
 * "error"`/`"fail"` whatever else the value holds), `"graphql"` (the default rules, and any non-empty
 * top-level `errors` or `userErrors` under `data`), or your own detector returning a failure or
 * `undefined`.
 *
 * @example
 * ```ts
 * const failures: FailuresOption = (value) =>
 *   (value as { state?: string }).state === "REJECTED" ? { code: "ORDER_REJECTED" } : undefined;
 * ```
 */
export type FailuresOption = "detect" | "off" | "jsend" | "graphql" | ((value: unknown) => ReturnedFailure | undefined);

/**
 * Formerly the number of items of one list the detector looked at. Every item is looked at now (up
 * to the 100,000 a snapshot keeps): a failure at the end of a large result is a failure too.
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
    return inspectObject(item, "item") !== undefined || inspectObject(item, "declared") !== undefined;
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
export function detectReturnedFailure(
  value: unknown,
  lists = true,
  format: "detect" | "jsend" | "graphql" = "detect",
): Detection | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    if (!Array.isArray(value)) {
      const v = value as Plain;
      const esBulk = v.errors === true && Object.hasOwn(v, "errors");
      const found = esBulk ? undefined : (inspectObject(value, "top") ?? formatFailure(v, format));
      if (found !== undefined) {
        const detail = found.message === undefined || found.httpStatus !== undefined ? detailOf(v) : undefined;
        return {
          failure: toFailure(found, isFetchResponse(value) ? undefined : detail),
          explicit: found.explicit,
          notApplied: found.notApplied === true,
        };
      }
      if (!lists) return undefined;
      const failure = scanLists(value);
      if (failure !== undefined) return { failure, explicit: false };
      if (esBulk)
        return {
          failure: toFailure({ code: "TOOL_ERROR", retriable: false, explicit: false }, undefined),
          explicit: false,
        };
      return undefined;
    }
    if (!lists) return undefined;
    const failure = scanLists(value);
    return failure === undefined ? undefined : { failure, explicit: false };
  } catch {
    // A hostile value (a proxy, a throwing getter) is data as far as detection goes; the snapshot
    // of the outcome deals with it.
    return undefined;
  }
}

/** What a tool's declared format adds to the default rules: JSend's status, GraphQL's `errors` of any shape. */
function formatFailure(v: Plain, format: "detect" | "jsend" | "graphql"): Found | undefined {
  if (format === "jsend") return jsendFailure(v, false);
  if (format !== "graphql") return undefined;
  const errors = v.errors;
  return Array.isArray(errors) && errors.length > 0 && Object.hasOwn(v, "errors")
    ? describeObject(v, undefined)
    : undefined;
}

/**
 * The default detector of returned failures (`@AgentFunction({ failures: "detect" })`): precision
 * before reach, by unambiguous markers of the top-level value only. A failure is a `Response` with
 * `ok: false`, a returned `Error`, `{ ok: false }`, `{ success: false }` beside no domain data, a
 * non-empty `error` or `errors` shaped like an error (a message or a code; a lint report's findings
 * are data), an HTTP status ≥ 400 on an object that is only an error envelope (`{ statusCode: 500 }`,
 * `{ status: 403, statusText }`), a JSend error envelope, GraphQL `userErrors`, GitHub's `{ message,
 * documentation_url }`, the same one wrapper down (`{ result: { ok: false } }`). In a batch (the
 * value itself as a list, or its `results`, `items`, `data`, `records`) an item fails by the same
 * markers when it holds nothing but its id and the failure; in a declared batch (`responses`,
 * `compositeResponse`, an Elasticsearch bulk answer) its HTTP status alone fails it; a list named
 * `failed` lists failed items. Fields of nested records (a log hit's `error`, an audit entry's
 * `success: false`, an uptime check's `status: 503`) are data, which the model still reads. The message is fixed text per code plus, where it is short, one line
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
