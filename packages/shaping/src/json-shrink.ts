import type { JsonValue } from "@needlework/core";
import { measureJson, setOwn } from "./json-measure.js";
import { listMarker, objectMarker, stringMarker, TRUNCATION_MARKERS } from "./truncation-markers.js";

/** How {@link shrinkJson} cuts. @internal */
export interface ShrinkRules {
  readonly maxListItems: number;
  /** Keys whose entries are kept before any other and never dropped (only shortened). */
  readonly isPreserved: (key: string) => boolean;
  /** List items that report a failure: kept before any other item of their list. */
  readonly isFailing?: (item: JsonValue) => boolean;
}

/** At most this many failing items of one list are kept ahead of the others. */
const MAX_KEPT_FAILING = 50;

// A share below these holds little more than a marker, so a container keeps fewer children instead
// of starving all of them. List items get more: a few readable records beat many skeletons.
const MIN_ENTRY_SHARE = 48;
const MIN_ITEM_SHARE = 96;
// Strings this short are never cut: the marker would be longer than what it saves.
const SHORT_STRING = 48;
// `{"truncated":true,"omitted_items":N}` and `"_truncated":{"omitted_keys":N}` with room for N.
const LIST_MARKER_CHARS = 44;
const OBJECT_MARKER_CHARS = 34;

const DEFAULT_PRESERVED =
  /^(?:id|Id|ID|uuid|status|statusCode|message|error_code|errorCode|code|error|errors|ok|success|retriable)$|(?:_id|_ID|[a-z0-9]Id|[a-z0-9]ID)$/;

/**
 * The test for keys that survive truncation: `id`, `*_id`, `*Id`, `uuid`, `status`, `statusCode`,
 * `message`, `error_code`, `errorCode`, `code`, and the failure fields `error`, `errors`, `ok`,
 * `success`, `retriable`, plus `extra` (exact names or patterns).
 * @internal
 */
export function preservedKeyTest(extra: readonly (string | RegExp)[]): (key: string) => boolean {
  if (extra.length === 0) return (key) => DEFAULT_PRESERVED.test(key);
  const names = new Set(extra.filter((k): k is string => typeof k === "string"));
  const patterns = extra.filter((k): k is RegExp => k instanceof RegExp);
  return (key) =>
    DEFAULT_PRESERVED.test(key) || names.has(key) || patterns.some((p) => ((p.lastIndex = 0), p.test(key)));
}

/** Shares `avail` among `sizes`: small ones get all they need, the rest split what is left evenly. */
function waterFill(sizes: readonly number[], avail: number): number[] {
  const alloc = sizes.slice();
  let total = 0;
  for (const s of sizes) total += s;
  if (total <= avail) return alloc;
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]!);
  let remaining = Math.max(0, avail);
  let left = sizes.length;
  for (const i of order) {
    const share = Math.floor(remaining / left);
    alloc[i] = Math.min(sizes[i]!, share);
    remaining -= alloc[i]!;
    left--;
  }
  return alloc;
}

/**
 * Where to end a cut at `end`: at the last whitespace within 48 characters before it when there is
 * one, so a word, an id or a secret is never cut in half (a redactor outside still recognizes it
 * whole); otherwise at `end`, never inside a surrogate pair.
 * @internal
 */
export function cutPoint(text: string, end: number): number {
  for (let i = end; i > 0 && i > end - 48; i--) {
    const c = text.charCodeAt(i - 1);
    if (c === 32 || c === 10 || c === 9 || c === 13) return i - 1;
  }
  const code = text.charCodeAt(end - 1);
  return end > 0 && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

function cutString(value: string, budget: number): string {
  if (value.length + 2 <= budget || value.length <= SHORT_STRING) return value;
  const markerLength = stringMarker(value.length).length;
  const keep = Math.max(0, budget - 2 - markerLength);
  // A cut that saves less than a marker's length costs readability for nothing: the budget
  // loop makes room elsewhere instead.
  if (value.length - keep < 2 * markerLength) return value;
  const end = cutPoint(value, keep);
  return value.slice(0, end) + stringMarker(value.length - end);
}

/**
 * Indexes of the list's failing items (ascending, at most {@link MAX_KEPT_FAILING}). Every item is
 * looked at, as the detector does: a failure at the end of a long list is kept too.
 */
function failingIndices(items: readonly JsonValue[], isFailing: ShrinkRules["isFailing"]): number[] {
  const found: number[] = [];
  if (isFailing === undefined) return found;
  for (let i = 0; i < items.length && found.length < MAX_KEPT_FAILING; i++) if (isFailing(items[i]!)) found.push(i);
  return found;
}

/**
 * A list with failing items: those are kept first (each at least its preserved keys), then the
 * first items as the budget allows; each run of dropped items becomes one marker in its place, so
 * positions stay readable.
 */
function shrinkArrayKeepingFailures(
  items: readonly JsonValue[],
  failing: readonly number[],
  budget: number,
  rules: ShrinkRules,
): JsonValue[] {
  const n = items.length;
  const sizes = new Map<number, number>();
  let need = 2 + LIST_MARKER_CHARS * (failing.length + 1);
  const keep = (i: number): boolean => {
    const size = measureJson(items[i]!, budget) + 1;
    if (need + Math.min(size, MIN_ITEM_SHARE) > budget) return false;
    need += Math.min(size, MIN_ITEM_SHARE);
    sizes.set(i, size);
    return true;
  };
  for (const i of failing) keep(i);
  const head = Math.min(n, Math.max(0, rules.maxListItems - sizes.size));
  for (let i = 0; i < head; i++) if (!sizes.has(i) && !keep(i)) break;
  const kept = [...sizes.keys()].sort((a, b) => a - b);
  if (kept.length === 0) return [listMarker(n)];
  let gaps = kept[0]! > 0 ? 1 : 0;
  for (let k = 1; k < kept.length; k++) if (kept[k]! > kept[k - 1]! + 1) gaps++;
  if (kept.at(-1)! < n - 1) gaps++;
  const alloc = waterFill(
    kept.map((i) => sizes.get(i)!),
    budget - 2 - gaps * LIST_MARKER_CHARS,
  );
  const out: JsonValue[] = [];
  let previous = -1;
  kept.forEach((i, k) => {
    if (i > previous + 1) out.push(listMarker(i - previous - 1));
    out.push(sizes.get(i)! <= alloc[k]! ? items[i]! : shrinkJson(items[i]!, Math.max(alloc[k]! - 1, 1), rules));
    previous = i;
  });
  if (previous < n - 1) out.push(listMarker(n - 1 - previous));
  return out;
}

function shrinkArray(items: readonly JsonValue[], budget: number, rules: ShrinkRules): JsonValue[] {
  const failing = failingIndices(items, rules.isFailing);
  if (failing.length > 0) return shrinkArrayKeepingFailures(items, failing, budget, rules);
  const n = items.length;
  const candidates = Math.min(n, rules.maxListItems);
  const sizes: number[] = [];
  // Keep items while each kept one can get a useful share (or all it needs).
  let need = 2;
  for (let i = 0; i < candidates; i++) {
    const size = measureJson(items[i]!, budget) + 1;
    const reserve = i + 1 < n ? LIST_MARKER_CHARS : 0;
    if (need + Math.min(size, MIN_ITEM_SHARE) + reserve > budget) break;
    need += Math.min(size, MIN_ITEM_SHARE);
    sizes.push(size);
  }
  const k = sizes.length;
  if (k === 0) return [listMarker(n)];
  const alloc = waterFill(sizes, budget - 2 - (k < n ? LIST_MARKER_CHARS : 0));
  const out: JsonValue[] = [];
  for (let i = 0; i < k; i++) {
    const item = items[i]!;
    out.push(sizes[i]! <= alloc[i]! ? item : shrinkJson(item, alloc[i]! - 1, rules));
  }
  if (k < n) out.push(listMarker(n - k));
  return out;
}

interface Entry {
  readonly key: string;
  readonly size: number;
  readonly preserved: boolean;
}

function shrinkObject(obj: { readonly [key: string]: JsonValue }, budget: number, rules: ShrinkRules): JsonValue {
  const keys = Object.keys(obj);
  const preserved = new Set<string>();
  let need = 2;
  for (const key of keys) {
    if (!rules.isPreserved(key)) continue;
    preserved.add(key);
    need += Math.min(key.length + 4 + measureJson(obj[key]!, budget), MIN_ENTRY_SHARE);
  }
  const kept: Entry[] = [];
  let omitted = 0;
  let full = false;
  for (const key of keys) {
    if (preserved.has(key)) {
      kept.push({ key, size: key.length + 4 + measureJson(obj[key]!, budget), preserved: true });
      continue;
    }
    if (full) {
      omitted++;
      continue;
    }
    const size = key.length + 4 + measureJson(obj[key]!, budget);
    if (need + Math.min(size, MIN_ENTRY_SHARE) + OBJECT_MARKER_CHARS > budget) {
      full = true;
      omitted++;
      continue;
    }
    need += Math.min(size, MIN_ENTRY_SHARE);
    kept.push({ key, size, preserved: false });
  }
  const alloc = waterFill(
    kept.map((e) => e.size),
    budget - 2 - (omitted > 0 ? OBJECT_MARKER_CHARS : 0),
  );
  const out: Record<string, JsonValue> = {};
  for (let i = 0; i < kept.length; i++) {
    const { key, size, preserved: keep } = kept[i]!;
    const share = alloc[i]!;
    if (size <= share) {
      setOwn(out, key, obj[key]!);
      continue;
    }
    const valueBudget = share - key.length - 4;
    if (valueBudget < 8 && !keep) {
      omitted++;
      continue;
    }
    setOwn(out, key, shrinkJson(obj[key]!, Math.max(valueBudget, 1), rules));
  }
  if (omitted > 0) {
    let markerKey: string = TRUNCATION_MARKERS.objectKey;
    while (Object.hasOwn(out, markerKey)) markerKey = `_${markerKey}`;
    out[markerKey] = objectMarker(omitted);
  }
  return out;
}

/**
 * A copy of a plain JSON value whose compact JSON is about `budget` characters or less: lists cut to
 * `maxListItems` (fewer when their items would get too small a share) with a
 * `{ truncated: true, omitted_items: N }` item, objects keeping preserved keys first and dropping
 * trailing keys with a `_truncated: { omitted_keys: N }` entry, long strings cut with a marker.
 * Budget is shared so small siblings stay whole and large ones are cut evenly. Parts that fit are
 * returned as they are (not copied). The cost follows the budget, not the size of `value`.
 * @internal
 */
export function shrinkJson(value: JsonValue, budget: number, rules: ShrinkRules): JsonValue {
  if (typeof value === "string") return cutString(value, budget);
  if (value === null || typeof value !== "object") return value;
  if (measureJson(value, budget) <= budget) return value;
  return Array.isArray(value) ? shrinkArray(value, budget, rules) : shrinkObject(value, budget, rules);
}
