import type { JsonValue } from "@needlework/core";
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
}

/** At most this many items are looked at for failures (as the shrinker does). */
const MAX_FAILING_SCAN = 1000;

/**
 * A list as its first `maxListItems` items, whole, and a marker for the rest, chosen without a
 * search: items are counted one by one (equal items once) and the counts summed, until the sum is
 * over the budget; a list whose items all fit is kept whole. Token counts do not add up exactly
 * across a join (`},{` is one piece of punctuation to the tokenizer, not three), so the sum only
 * chooses; the kept list is then counted once as a whole, which decides. What may be kept is
 * redacted (`scrub`) before it is counted, so the budget holds for what the model reads.
 *
 * `undefined` when that shape does not fit the budget or does not apply (a list with failing items
 * keeps those first; items too big to keep whole are cut inside): the search of `truncateValue`
 * handles those. `over` says the items counted were already over the budget, so the list is too.
 * @internal
 */
export function fitList(
  items: readonly JsonValue[],
  maxTokens: number,
  counter: TokenCounter,
  rules: ShrinkRules,
  scrub: ((value: unknown) => unknown) | undefined,
): FittedList | "over" | undefined {
  const n = items.length;
  if (n === 0) return undefined;
  if (rules.isFailing) {
    const scan = Math.min(n, MAX_FAILING_SCAN);
    for (let i = 0; i < scan; i++) if (rules.isFailing(items[i]!)) return undefined;
  }
  // Items are redacted a few at a time, only as far as they are counted: never the discarded rest.
  let shown: JsonValue[] = [];
  let sum = 1; // the brackets, about
  let itemChars = 0;
  let counted = 0;
  while (counted < n && sum <= maxTokens) {
    if (counted === shown.length) {
      const next = items.slice(counted, Math.min(n, Math.max(2 * counted, 8)));
      shown = shown.concat((scrub ? scrub(next) : next) as JsonValue[]);
    }
    const text = JSON.stringify(shown[counted]);
    sum += counter.count(text) + (counted > 0 ? 1 : 0);
    itemChars += text.length + 1;
    counted++;
  }
  if (sum <= maxTokens) {
    // Every item was counted and the sum fits: the list is kept whole, if its count agrees.
    const tokens = counter.count(JSON.stringify(shown));
    return tokens <= maxTokens ? { kept: shown, whole: true, tokens, itemTokens: sum - 1, itemChars } : undefined;
  }
  const keep = Math.min(rules.maxListItems, n);
  if (keep === 0 || keep >= counted) return "over"; // the kept items themselves do not fit whole
  const kept = [...shown.slice(0, keep), listMarker(n - keep)];
  const tokens = counter.count(JSON.stringify(kept));
  return tokens <= maxTokens ? { kept, whole: false, tokens, itemTokens: sum - 1, itemChars } : "over";
}
