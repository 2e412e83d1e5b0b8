import type { JsonValue } from "@needlework/core";

/** How a page is measured and an item too large for one is cut. @internal */
export interface PageMeasure {
  /** Tokens of a text. */
  count(text: string): number;
  /** `value` cut to at most `maxTokens` tokens, structure kept (the truncator). */
  cut(value: unknown, maxTokens: number): unknown;
}

/**
 * One page of `value` within `maxTokens` tokens of its JSON:
 * - a list: `{ items, offset, total }`, the items from `offset`, at most `limit`, as many whole
 *   ones as fit (a first item larger than the page alone comes cut, structure kept);
 * - an object: the same over its members (`items` an object of the members from `offset`);
 * - a string: `{ text, offset, total }`, characters from `offset`;
 * - anything else: `{ value }`.
 * @internal
 */
export function pageOf(
  value: unknown,
  offset: number,
  limit: number,
  maxTokens: number,
  measure: PageMeasure,
): JsonValue {
  if (Array.isArray(value)) return listPage(value, offset, limit, maxTokens, measure);
  if (typeof value === "object" && value !== null)
    return memberPage(value as Record<string, JsonValue>, offset, limit, maxTokens, measure);
  if (typeof value === "string") return textPage(value, offset, maxTokens, measure);
  return { value: value as JsonValue };
}

function listPage(
  list: readonly unknown[],
  offset: number,
  limit: number,
  maxTokens: number,
  measure: PageMeasure,
): JsonValue {
  const total = list.length;
  const items: JsonValue[] = [];
  const frame = { items, offset, total };
  let tokens = measure.count(JSON.stringify(frame));
  for (let i = offset; i < Math.min(total, offset + limit); i++) {
    const text = JSON.stringify(list[i] ?? null);
    const cost = measure.count(text) + 1;
    if (tokens + cost > maxTokens) {
      if (items.length === 0) items.push(measure.cut(list[i], Math.max(1, maxTokens - tokens)) as JsonValue);
      break;
    }
    items.push(list[i] as JsonValue);
    tokens += cost;
  }
  return fitted(frame, (page) => page.items.length > 1 && (page.items.pop(), true), maxTokens, measure);
}

function memberPage(
  object: Record<string, JsonValue>,
  offset: number,
  limit: number,
  maxTokens: number,
  measure: PageMeasure,
): JsonValue {
  const keys = Object.keys(object);
  const items: Record<string, JsonValue> = {};
  const frame = { items, offset, total: keys.length };
  let tokens = measure.count(JSON.stringify(frame));
  let kept = 0;
  for (let i = offset; i < Math.min(keys.length, offset + limit); i++) {
    const key = keys[i]!;
    const cost = measure.count(`${JSON.stringify(key)}:${JSON.stringify(object[key] ?? null)}`) + 1;
    if (tokens + cost > maxTokens) {
      if (kept === 0) setMember(items, key, measure.cut(object[key], Math.max(1, maxTokens - tokens)) as JsonValue);
      break;
    }
    setMember(items, key, object[key] ?? null);
    tokens += cost;
    kept++;
  }
  const drop = (page: typeof frame): boolean => {
    const names = Object.keys(page.items);
    if (names.length <= 1) return false;
    delete page.items[names[names.length - 1]!];
    return true;
  };
  return fitted(frame, drop, maxTokens, measure);
}

function textPage(text: string, offset: number, maxTokens: number, measure: PageMeasure): JsonValue {
  const total = text.length;
  const fits = (n: number) =>
    measure.count(JSON.stringify({ text: slice(text, offset, n), offset, total })) <= maxTokens;
  let low = 0;
  let high = Math.min(total - Math.min(offset, total), maxTokens * 8);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return { text: slice(text, offset, low), offset, total };
}

/** `n` characters from `offset`, never ending inside a surrogate pair. */
function slice(text: string, offset: number, n: number): string {
  let end = Math.min(text.length, offset + n);
  const last = text.charCodeAt(end - 1);
  if (end > offset && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(offset, end);
}

/** The page, its last items dropped while its whole JSON counts over the budget (BPE merges across items). */
function fitted<T extends JsonValue>(
  page: T,
  dropLast: (page: T) => boolean,
  maxTokens: number,
  measure: PageMeasure,
): T {
  while (measure.count(JSON.stringify(page)) > maxTokens && dropLast(page));
  return page;
}

function setMember(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
