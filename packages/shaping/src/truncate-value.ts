import { type JsonValue, toJsonSafe } from "@needlework/core";
import { itemFails } from "@needlework/core/internal";
import { scanJson } from "./json-measure.js";
import { fitList } from "./fit-list.js";
import { cutPoint, preservedKeyTest, type ShrinkRules, shrinkJson } from "./json-shrink.js";
import { TokenCounter } from "./token-counter.js";
import { type TokenEncoding, type Tokenizer, tokenizerFor } from "./tokenizer.js";
import { listMarker, objectMarker, stringMarker, TRUNCATION_MARKERS } from "./truncation-markers.js";
import {
  type ResolvedTruncationOptions,
  resolveTruncationOptions,
  type TruncationOptions,
} from "./truncation.options.js";

/**
 * What {@link truncateValue} and {@link truncateText} return.
 *
 * @example
 * ```ts
 * const { value, truncated, originalTokens, keptTokens } = truncateValue(rows);
 * if (truncated) log(`kept ${keptTokens} of ~${originalTokens} tokens`);
 * ```
 */
export interface TruncateResult<T = unknown> {
  /** The value as given when it fits, otherwise a cut, JSON-safe copy. */
  readonly value: T;
  /** Whether anything was cut. */
  readonly truncated: boolean;
  /** Tokens of the original's compact JSON: exact when small, estimated when large (see `originalTokensEstimated`). */
  readonly originalTokens: number;
  /** Tokens of the kept value's compact JSON, counted exactly; never above `maxTokens`. */
  readonly keptTokens: number;
  /** True when `originalTokens` is estimated from the original's size and the kept part's density (large originals are never tokenized whole). */
  readonly originalTokensEstimated: boolean;
}

// Below this many characters per budget token the original is tokenized exactly (cheap); above it,
// it is over budget for any realistic text (JSON, prose and code run at 2 to 5 characters a token).
const EXACT_CHARS_PER_TOKEN = 16;
// The first guess of characters per token for a budget; passes correct it from the counted result.
const START_CHARS_PER_TOKEN = 3;
const MAX_PASSES = 6;
// Stop refining once the kept value uses this share of the budget.
const GOOD_ENOUGH = 0.85;

type Serialize = (kept: JsonValue) => string;
/** Redacts a value before it is cut or counted (the pipeline's redactors); identity when none. @internal */
export type Scrub = (value: unknown) => unknown;
const compact: Serialize = (kept) => JSON.stringify(kept);
const asJsonString: Serialize = (kept) => JSON.stringify(JSON.stringify(kept));

interface Fitted {
  readonly kept: JsonValue;
  readonly tokens: number;
  readonly chars: number;
}

function minimal(value: JsonValue): JsonValue {
  if (typeof value === "string") return stringMarker(value.length);
  if (Array.isArray(value)) return [listMarker(value.length)];
  if (value !== null && typeof value === "object")
    return { [TRUNCATION_MARKERS.objectKey]: objectMarker(Object.keys(value).length) };
  return value;
}

/** Shrinks `value` to a character budget, counts the result, and corrects the budget from the count. */
function fitJson(
  value: JsonValue,
  maxTokens: number,
  totalChars: number,
  counter: TokenCounter,
  rules: ShrinkRules,
  serialize: Serialize,
): Fitted {
  let budget = Math.max(64, Math.floor(maxTokens * START_CHARS_PER_TOKEN));
  let best: Fitted | undefined;
  let under: number | undefined; // the largest budget known to fit
  let over: number | undefined; // the smallest budget known not to fit
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const kept = shrinkJson(value, budget, rules);
    const text = serialize(kept);
    // A budget that cuts the same as an earlier one (a list at maxListItems, a value kept whole)
    // would lead the search back and forth between the same texts: stop at the first repeat.
    if (pass > 0 && counter.has(text)) break;
    const tokens = counter.count(text);
    let next: number;
    if (tokens <= maxTokens) {
      if (!best || tokens > best.tokens) best = { kept, tokens, chars: text.length };
      if (tokens >= maxTokens * GOOD_ENOUGH || budget >= totalChars) break;
      under = budget;
      next = over === undefined ? (budget * maxTokens * 0.95) / Math.max(tokens, 1) : (under + over) / 2;
    } else {
      over = budget;
      next = under === undefined ? Math.min(budget * 0.9, (budget * maxTokens * 0.95) / tokens) : (under + over) / 2;
    }
    next = Math.floor(next);
    if (next < 8 || Math.abs(next - budget) < budget * 0.03) break;
    budget = next;
  }
  if (best) return best;
  const fallback = minimal(value);
  const text = serialize(fallback);
  const tokens = counter.count(text);
  return tokens <= maxTokens ? { kept: fallback, tokens, chars: text.length } : { kept: null, tokens: 1, chars: 4 };
}

interface TextCut {
  readonly text: string;
  readonly tokens: number;
  readonly rawKeptTokens: number;
  readonly rawKeptChars: number;
}

/** Cuts plain text on a token boundary, tokenizing only a prefix a little longer than what is kept. */
function cutText(
  text: string,
  maxTokens: number,
  tokenizer: Tokenizer,
  serialize: (s: string) => string,
): TextCut | undefined {
  let keepTokens = maxTokens - tokenizer.count(stringMarker(text.length)) - 2;
  for (let attempt = 0; attempt < 4 && keepTokens > 0; attempt++) {
    let prefixLength = Math.min(text.length, (keepTokens + 1) * 6);
    let tokens = tokenizer.encode(text.slice(0, prefixLength));
    while (tokens.length <= keepTokens && prefixLength < text.length) {
      prefixLength = Math.min(text.length, prefixLength * 2);
      tokens = tokenizer.encode(text.slice(0, prefixLength));
    }
    if (tokens.length <= keepTokens) return undefined; // the whole text fits after all
    let n = keepTokens;
    let kept = tokenizer.decode(tokens.slice(0, n));
    // A token may end inside a multi-byte character; step back to a clean boundary.
    while (n > 0 && !text.startsWith(kept)) kept = tokenizer.decode(tokens.slice(0, --n));
    // Ending before a space is a token boundary too, and keeps the last word (or secret) whole.
    kept = kept.slice(0, cutPoint(kept, kept.length));
    const result = kept + stringMarker(text.length - kept.length);
    const counted = tokenizer.count(serialize(result));
    if (counted <= maxTokens) return { text: result, tokens: counted, rawKeptTokens: n, rawKeptChars: kept.length };
    keepTokens -= counted - maxTokens + 2;
  }
  const marker = stringMarker(text.length);
  return { text: marker, tokens: tokenizer.count(serialize(marker)), rawKeptTokens: 0, rawKeptChars: 0 };
}

function estimate(totalChars: number, keptTokens: number, keptChars: number, maxTokens: number): number {
  const density = keptChars > 0 ? keptTokens / keptChars : 1 / START_CHARS_PER_TOKEN;
  return Math.max(maxTokens + 1, Math.round(totalChars * density));
}

function plainText(
  text: string,
  maxTokens: number,
  tokenizer: Tokenizer,
  exact: number | undefined,
): TruncateResult<string> {
  const cut = cutText(text, maxTokens, tokenizer, (s) => JSON.stringify(s));
  if (cut === undefined) {
    const tokens = exact ?? tokenizer.count(JSON.stringify(text));
    return {
      value: text,
      truncated: false,
      originalTokens: tokens,
      keptTokens: tokens,
      originalTokensEstimated: false,
    };
  }
  const originalTokens = exact ?? estimate(text.length, cut.rawKeptTokens, cut.rawKeptChars, maxTokens);
  return {
    value: cut.text,
    truncated: true,
    originalTokens,
    keptTokens: cut.tokens,
    originalTokensEstimated: exact === undefined,
  };
}

/** Counts `text` exactly when that is cheap; `undefined` when it is too long to be worth it (and surely over). */
function exactCount(text: string, maxTokens: number, tokenizer: Tokenizer): number | undefined {
  return text.length <= maxTokens * EXACT_CHARS_PER_TOKEN ? tokenizer.count(JSON.stringify(text)) : undefined;
}

function truncateString(
  text: string,
  maxTokens: number,
  tokenizer: Tokenizer,
  rules: ShrinkRules,
  scrub: Scrub | undefined,
): TruncateResult<unknown> {
  const exact = exactCount(text, maxTokens, tokenizer);
  if (exact !== undefined && exact <= maxTokens)
    return { value: text, truncated: false, originalTokens: exact, keptTokens: exact, originalTokensEstimated: false };
  // Redacted before the cut, so no cut splits a secret into parts a detector no longer knows.
  const shown = scrub ? (scrub(text) as string) : text;
  // A tool that returns JSON as text keeps valid JSON: cut the parsed structure, not the characters.
  const first = shown.trimStart()[0];
  if (first === "{" || first === "[") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(shown);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      // Parsed JSON is plain but may nest deeper than the walk allows: the same depth cap applies.
      const safe = scanJson(parsed).plain ? (parsed as JsonValue) : toJsonSafe(parsed);
      const fitted = fitJson(safe, maxTokens, shown.length, new TokenCounter(tokenizer), rules, asJsonString);
      const originalTokens = exact ?? estimate(text.length + 2, fitted.tokens, fitted.chars, maxTokens);
      return {
        value: JSON.stringify(fitted.kept),
        truncated: true,
        originalTokens,
        keptTokens: fitted.tokens,
        originalTokensEstimated: exact === undefined,
      };
    }
  }
  return plainText(shown, maxTokens, tokenizer, exact);
}

/**
 * A truncation function bound to resolved options; `maxTokens` may be overridden per call, and
 * `scrub` redacts what is about to be cut or kept (see {@link createTruncator}). @internal
 */
export type Truncator = (value: unknown, maxTokens?: number, scrub?: Scrub) => TruncateResult<unknown>;

/**
 * Builds a {@link Truncator}; the tokenizer is loaded on the first call. With `scrub`, what is
 * kept is redacted before it is counted (the budget holds for what the model reads), and what is
 * cut is redacted before the cut (no secret is split into parts a detector no longer knows): the
 * head of a list that keeps its first items whole, otherwise the whole value once it is known not
 * to fit. A value that fits is returned as it came, not redacted. @internal
 */
export function createTruncator(options: ResolvedTruncationOptions): Truncator {
  const rules: ShrinkRules = {
    maxListItems: options.maxListItems,
    isPreserved: preservedKeyTest(options.preserveKeys),
    // A failing item of a list (a batch's rejected write) is kept ahead of the others.
    isFailing: itemFails,
  };
  return (value, maxTokens = options.maxTokens, scrub) => {
    if (value === undefined)
      return { value, truncated: false, originalTokens: 0, keptTokens: 0, originalTokensEstimated: false };
    const tokenizer = tokenizerFor(options.encoding);
    if (typeof value === "string") return truncateString(value, maxTokens, tokenizer, rules, scrub);
    const counter = new TokenCounter(tokenizer);
    // A list is tried first, reading only as many items as it counts (a long list is not walked).
    const listed = Array.isArray(value) ? fitList(value, maxTokens, counter, rules, scrub) : undefined;
    if (listed !== undefined && listed !== "over") {
      if (!listed.whole)
        return {
          value: listed.kept,
          truncated: true,
          originalTokens: estimate(listed.totalChars, listed.itemTokens, listed.itemChars, maxTokens),
          keptTokens: listed.tokens,
          originalTokensEstimated: true,
        };
      // Every item was kept whole: the list fits.
      const tokens = scrub ? counter.count(JSON.stringify(value)) : listed.tokens;
      if (tokens <= maxTokens)
        return { value, truncated: false, originalTokens: tokens, keptTokens: tokens, originalTokensEstimated: false };
    }
    let safe = value as JsonValue;
    let scan = scanJson(value);
    if (!scan.plain) {
      safe = toJsonSafe(value);
      scan = scanJson(safe);
    }
    let exact: number | undefined;
    if (listed !== "over" && scan.chars <= maxTokens * EXACT_CHARS_PER_TOKEN) {
      exact = counter.count(JSON.stringify(safe));
      if (exact <= maxTokens)
        return { value, truncated: false, originalTokens: exact, keptTokens: exact, originalTokensEstimated: false };
    }
    const shown = scrub ? (scrub(safe) as JsonValue) : safe;
    const fitted = fitJson(shown, maxTokens, scan.chars, counter, rules, compact);
    const originalTokens = exact ?? estimate(scan.chars, fitted.tokens, fitted.chars, maxTokens);
    return {
      value: fitted.kept,
      truncated: true,
      originalTokens,
      keptTokens: fitted.tokens,
      originalTokensEstimated: exact === undefined,
    };
  };
}

/**
 * Fits any value into a token budget, keeping valid JSON. A value that fits is returned as it is.
 * Otherwise a JSON-safe copy is cut: lists to `maxListItems` items (fewer if still over) followed by
 * `{ truncated: true, omitted_items: N }`; objects keep `id`, `*_id`, `*Id`, `status`, `message`,
 * `error_code` first and drop trailing keys behind `_truncated: { omitted_keys: N }`; long strings end
 * in `…[truncated: N chars omitted]`. A string is cut on a token boundary, or, when it holds JSON,
 * parsed, cut as a structure and serialized again. Tokens are counted on the compact JSON of the
 * kept value; the discarded part is never tokenized, so the cost follows the kept size plus one
 * walk of the value. BigInt, Map, Date, cycles and the like are made safe first (`toJsonSafe`).
 *
 * @example
 * ```ts
 * const { value, truncated, originalTokens, keptTokens } = truncateValue(rows, { maxTokens: 500 });
 * // value: [row0, ..., row9, { truncated: true, omitted_items: 9990 }]
 * ```
 */
export function truncateValue(value: unknown, options: TruncationOptions = {}): TruncateResult<unknown> {
  return createTruncator(resolveTruncationOptions(options))(value);
}

/**
 * Fits plain text into a token budget, cutting on a token boundary and appending
 * `…[truncated: N chars omitted]`. Only a prefix slightly longer than the kept part is tokenized.
 * The budget applies to the text as it appears in JSON (quoted and escaped), as the model reads it.
 *
 * @example
 * ```ts
 * truncateText(logOutput, { maxTokens: 300 }).value; // "...first ~290 tokens…[truncated: 48211 chars omitted]"
 * ```
 */
export function truncateText(
  text: string,
  options: Pick<TruncationOptions, "maxTokens" | "encoding"> = {},
): TruncateResult<string> {
  const { maxTokens, encoding } = resolveTruncationOptions(options);
  return truncatePlainText(text, maxTokens, encoding);
}

/** {@link truncateText} with resolved options. @internal */
export function truncatePlainText(text: string, maxTokens: number, encoding: TokenEncoding): TruncateResult<string> {
  const tokenizer = tokenizerFor(encoding);
  const exact = exactCount(text, maxTokens, tokenizer);
  if (exact !== undefined && exact <= maxTokens)
    return { value: text, truncated: false, originalTokens: exact, keptTokens: exact, originalTokensEstimated: false };
  return plainText(text, maxTokens, tokenizer, exact);
}
