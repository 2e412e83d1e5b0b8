import type { JsonValue } from "@needlework/core";
import { scanJson } from "./json-measure.js";
import type { ShrinkRules } from "./json-shrink.js";
import type { TokenCounter } from "./token-counter.js";
import { listMarker } from "./truncation-markers.js";

/** What {@link fitList} kept. @internal */
export interface FittedList {
  /** The first items, whole, then a marker for the rest (when any were left out). */
  readonly kept: JsonValue[];
  /** Whether every item was kept (no marker). */
  readonly whole: boolean;
  /** Tokens of the kept list's compact JSON, counted as a whole. */
  readonly tokens: number;
  /** Tokens and characters of the items counted one by one, to estimate the whole list's size. */
  readonly itemTokens: number;
  readonly itemChars: number;
  /** The whole list's compact JSON length, estimated from the items counted (the rest is not read). */
  readonly totalChars: number;
}

// Token counts add up across the items of a list when each item is counted from where the
// tokenizer starts a piece in the whole list too. Both encodings first split text with a regex in
// which a run of punctuation (`"}},{"`) is one piece, taken whole from where it starts, and a letter
// or digit never belongs to it; so in `...,{"id":...` a piece starts at the `i`, whatever came
// before. An object item whose JSON starts `{"` and a letter or digit is therefore counted from its
// first key to the same place in the next item: `id":"C-1",...}` + `,{"` (the last item ends in
// `]`, the list starts `[{"`). The kept list is then counted exactly from its items' counts, and
// each character is tokenized once. fit-list.test.ts checks this against both real encodings.
const LIST_START = '[{"';
const NEXT_ITEM = ',{"';
const KEYED = /^\{"[\p{L}\p{N}]/u;

/**
 * A list as its first `maxListItems` items, whole, and a marker for the rest, chosen without a
 * search: items are counted one by one (equal items once) and the counts summed, until the sum is
 * over the budget; a list whose items all fit is kept whole. For lists of objects the sum is the
 * exact count of the kept list (see above); for other lists it only chooses, and the kept list is
 * counted once as a whole to decide. The first `maxListItems` items, all that may be kept of a list
 * that does not fit, are redacted (`scrub`) before they are counted, so the budget holds for what
 * the model reads.
 *
 * `undefined` when that shape does not fit the budget or does not apply (a list with failing items
 * keeps those first; items too big to keep whole are cut inside): the search of `truncateValue`
 * handles those. `over` says the items counted were already over the budget, so the list is too.
 * @internal
 */
export function fitList(
  items: readonly unknown[],
  maxTokens: number,
  counter: TokenCounter,
  rules: ShrinkRules,
  scrub: ((value: unknown) => unknown) | undefined,
): FittedList | "over" | undefined {
  const n = items.length;
  if (n === 0) return undefined;
  if (rules.isFailing) {
    try {
      // Every item, as the detector and the shrinker look at them: a failure at the end counts.
      for (let i = 0; i < n; i++) if (rules.isFailing(items[i] as JsonValue)) return undefined;
    } catch {
      return undefined; // an item that throws when read: the search makes it safe first
    }
  }
  // Only the items that may be kept are redacted, in one scan: those after them are counted as they
  // are, only to learn whether the whole list fits (then it is returned as it came, unredacted).
  // Only the items read are checked to be plain JSON (a list's items are rarely anything else): the
  // rest of a long list is not walked at all. Anything else goes to the search, made safe first.
  const plain = (item: unknown): item is JsonValue => scanJson(item).plain;
  const head = items.slice(0, Math.min(n, rules.maxListItems));
  if (!head.every(plain)) return undefined;
  const shown = (scrub && head.length > 0 ? scrub(head) : head) as JsonValue[];
  // While every item is a keyed object, `sum` is exact: the list's start and each item's piece.
  let exact = true;
  const start = counter.count(LIST_START);
  let sum = start;
  const pieces: number[] = [];
  let itemChars = 0;
  let counted = 0;
  while (counted < n && sum <= maxTokens) {
    const item = counted < shown.length ? shown[counted] : items[counted];
    if (counted >= shown.length && !plain(item)) return undefined;
    const text = JSON.stringify(item);
    exact &&= KEYED.test(text);
    const piece = exact
      ? counter.count(text.slice(2) + (counted === n - 1 ? "]" : NEXT_ITEM))
      : counter.count(text) + 1;
    pieces.push(piece);
    sum += piece;
    itemChars += text.length + 1;
    counted++;
  }
  const itemTokens = sum - start;
  const totalChars = Math.round((itemChars / counted) * n) + 1;
  if (sum <= maxTokens) {
    // Every item was counted and the sum fits: the list is kept whole, if its count agrees.
    const all = shown.length === n ? shown : [...shown, ...(items.slice(shown.length) as JsonValue[])];
    const tokens = exact ? sum : counter.count(JSON.stringify(all));
    return tokens <= maxTokens ? { kept: all, whole: true, tokens, itemTokens, itemChars, totalChars } : undefined;
  }
  const keep = Math.min(rules.maxListItems, n);
  if (keep === 0 || keep >= counted) return "over"; // the kept items themselves do not fit whole
  const marker = listMarker(n - keep);
  const kept = [...shown.slice(0, keep), marker];
  let tokens: number;
  if (exact) {
    tokens = start + counter.count(`${JSON.stringify(marker).slice(2)}]`);
    for (let i = 0; i < keep; i++) tokens += pieces[i]!;
  } else {
    tokens = counter.count(JSON.stringify(kept));
  }
  return tokens <= maxTokens ? { kept, whole: false, tokens, itemTokens, itemChars, totalChars } : "over";
}
