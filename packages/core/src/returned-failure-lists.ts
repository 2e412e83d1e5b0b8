// Failed items of the lists in a result: batch and composite answers, and lists named for failures
// (`failed`). Every walk is bounded: a list is read up to MAX_LIST_ITEMS indexes, so a sparse array of
// length 2^32-1 costs what a list of that many items would, not four billion reads.
import type { FailedItem, ReturnedFailure } from "./returned-failure.types.js";
import { own, type Plain } from "./returned-failure-describe.js";
import { ID_KEYS, inspectObject, type Place } from "./returned-failure-object.js";
import { summarizeCodes } from "./returned-failure-text.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";

/**
 * Indexes of one list the detector reads: the snapshot the model reads keeps as many
 * (`toJsonSafe`'s `maxArrayItems`), so an item past them is in no text either. @internal
 */
export const MAX_LIST_ITEMS = 100_000;

/** Fields holding a batch's items, in the order they are read. */
const BATCH_FIELDS = ["results", "items", "data", "records", "responses", "compositeResponse"] as const;
/** Lists whose items are HTTP responses by name: an item's status alone says it failed. */
const RESPONSE_LISTS: ReadonlySet<string> = new Set(["responses", "compositeResponse"]);
/** Lists named for their failed items: every item with an id in them failed. */
const FAILED_FIELDS = ["failed", "failedItems", "failed_items", "errored"] as const;
/** Siblings of a failed list that count the items that went through. */
const SUCCEEDED_FIELDS = ["succeeded", "successful", "created", "updated", "processed", "results", "items"] as const;

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

/** The failure of a list some of whose `failed` items (of `total`) failed. */
function listFailure(failed: FailedItem[], total: number, field: string): ReturnedFailure {
  const where = field === "" ? "the list" : `'${field}'`;
  const codes = summarizeCodes(failed.map((f) => f.code));
  const all = failed.length >= total;
  const distinct = new Set(failed.map((f) => f.code));
  return {
    code: all ? (distinct.size === 1 ? failed[0]!.code : "BATCH_FAILED") : "PARTIAL_FAILURE",
    // The count and every code first: a reader of the first 200 characters sees them all.
    message: all
      ? `${failed.length} failed: ${codes} (all ${total} in ${where}).`
      : `${failed.length} failed: ${codes} (of ${total} in ${where}); the others succeeded.`,
    retriable: failed.some((f) => f.retriable === true),
    suggestion: all
      ? "Nothing in this batch was done; tell the user, or retry only if the codes allow it."
      : "Only the listed items failed: retry or report those, and do not redo the ones that succeeded.",
    items: failed,
    total,
    field,
  };
}

/** The failed items of one list, judged as `place` says. @internal */
export function scanList(
  list: readonly unknown[],
  field: string,
  place: Place,
  unwrap: boolean,
): ReturnedFailure | undefined {
  const n = Math.min(list.length, MAX_LIST_ITEMS);
  let failed: FailedItem[] | undefined;
  for (let i = 0; i < n; i++) {
    const item = list[i];
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    const target = unwrap ? unwrapped(item) : item;
    const found = inspectObject(target, place);
    if (found === undefined) continue;
    const id = idOf(target) ?? (target === item ? undefined : idOf(item));
    (failed ??= []).push({
      index: i,
      code: found.code,
      retriable: found.retriable,
      ...(id === undefined ? {} : { id }),
    });
  }
  return failed === undefined ? undefined : listFailure(failed, n, field);
}

/** An id-like key: `id`, `contactId`, `order_id`. */
const ID_LIKE = /(?:^|_)id$|[a-z]Id$|^(?:key|ref|referenceId)$/;

function hasIdLike(item: Plain): boolean {
  for (const key in item) if (Object.hasOwn(item, key) && ID_LIKE.test(key)) return true;
  return false;
}

/** `{ created: [...], failed: [{ id, error }] }`: a list named for failures, of items that name what failed. */
function failedList(v: Plain): ReturnedFailure | undefined {
  for (const field of FAILED_FIELDS) {
    const list = own(v, field);
    if (!Array.isArray(list) || list.length === 0) continue;
    const n = Math.min(list.length, MAX_LIST_ITEMS);
    const failed: FailedItem[] = [];
    for (let i = 0; i < n; i++) {
      const item: unknown = list[i];
      if (typeof item !== "object" || item === null || Array.isArray(item) || !hasIdLike(item as Plain)) continue;
      const found = inspectObject(item, "declared");
      const id = idOf(item);
      failed.push({
        index: i,
        code: found?.code ?? "TOOL_ERROR",
        retriable: found?.retriable ?? false,
        ...(id === undefined ? {} : { id }),
      });
    }
    if (failed.length === 0) continue;
    let succeeded = 0;
    for (const key of SUCCEEDED_FIELDS) {
      const other = own(v, key);
      succeeded += Array.isArray(other) ? other.length : typeof other === "number" && other > 0 ? other : 0;
    }
    return listFailure(failed, failed.length + succeeded, field);
  }
  return undefined;
}

/**
 * The failed items in a result's lists: the value itself when it is a list (items judged strictly),
 * an Elasticsearch bulk answer (`errors: true`), `responses`/`compositeResponse` (a status alone
 * fails an item), the first batch field with failed items, then a list named `failed`. @internal
 */
export function scanLists(value: unknown): ReturnedFailure | undefined {
  if (Array.isArray(value)) return scanList(value, "", "item", false);
  const v = value as Plain;
  const esBulk = v.errors === true && Object.hasOwn(v, "errors");
  for (const field of BATCH_FIELDS) {
    const list = own(v, field);
    if (!Array.isArray(list)) continue;
    const declared = esBulk || RESPONSE_LISTS.has(field);
    const failure = scanList(list, field, declared ? "declared" : "item", esBulk);
    if (failure !== undefined) return failure;
  }
  return failedList(v);
}
