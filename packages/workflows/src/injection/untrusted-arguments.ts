/*
 * Which argument values of a call came from untrusted content. Written here rather than taken from
 * a library: no package does provenance by value, and the rule is short. A value is untrusted when
 * it appears in an untrusted result and nowhere the user or a trusted tool could have given it:
 *   - a string (compared case- and space-insensitively, invisible characters dropped) found whole,
 *     as a token, in an untrusted result and not in the user's input or a trusted result; compared
 *     also with separators removed (spaces, `-`, `.`) when that leaves six characters or more, so an
 *     IBAN printed in groups is the IBAN the model copies without them (lookalike-text.ts);
 *   - a string holding a span of UNTRUSTED_SPAN_LENGTH characters or more copied from an untrusted
 *     result (a paragraph pasted into an e-mail body) that the user's input and trusted results lack;
 *   - a number found (as a number, so "1,200.00" is 1200) in an untrusted result and not in the
 *     user's input or a trusted result.
 * A value the model made up or transformed (a sum, a translation) is not found anywhere: it passes.
 */

import { normalizeText, SqueezedText, squeeze } from "./lookalike-text.js";

/**
 * The shortest span (in characters, after collapsing spaces) that counts as copied from untrusted
 * content when it appears inside a longer argument.
 *
 * @example
 * ```ts
 * if (body.length >= UNTRUSTED_SPAN_LENGTH) console.log("long enough to be checked for copied spans");
 * ```
 */
export const UNTRUSTED_SPAN_LENGTH = 24;

/** The texts a run's values are looked up in: what its user and trusted tools gave, and untrusted results. */
export interface ValueSources {
  readonly trusted: readonly unknown[];
  readonly untrusted: readonly unknown[];
  /**
   * Trusted results of calls that had arguments, with those arguments: a value of such a result
   * that was in its call's arguments vouches for nothing (a tool echoing its arguments launders
   * no value); its other values are trusted.
   */
  readonly echoes?: readonly EchoedResult[];
}

/** A trusted tool's result and the arguments of the call it answered. */
export interface EchoedResult {
  readonly result: unknown;
  readonly arguments: unknown;
}

const normalize = normalizeText;
const NUMBER = /[-+]?\d[\d,]*(?:\.\d+)?/g;
const WORD = /[\p{L}\p{N}]/u;

/** The strings and numbers of a JSON-ish value, leaves first. */
function leaves(value: unknown, out: { strings: string[]; numbers: Set<number> }, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    out.strings.push(normalize(value));
    for (const match of value.matchAll(NUMBER)) {
      const n = Number(match[0].replace(/,/g, ""));
      if (Number.isFinite(n)) out.numbers.add(n);
    }
  } else if (typeof value === "number" && Number.isFinite(value)) {
    out.numbers.add(value);
    out.strings.push(String(value));
  } else if (Array.isArray(value)) for (const item of value) leaves(item, out, depth + 1);
  else if (typeof value === "object" && value !== null)
    for (const item of Object.values(value)) leaves(item, out, depth + 1);
}

/** A lookup over one side's texts. */
class Corpus {
  readonly text: string;
  readonly numbers: Set<number>;
  private spans: Set<string> | undefined;
  private squeezed: SqueezedText | undefined;

  constructor(values: readonly unknown[]) {
    const out = { strings: [] as string[], numbers: new Set<number>() };
    for (const value of values) leaves(value, out);
    // Space-separated and space-padded: a value at the start of one text reads as it does inside one.
    this.text = ` ${out.strings.join(" ")} `;
    this.numbers = out.numbers;
  }

  /** `needle` occurs with no letter or digit right before or after it. */
  hasToken(needle: string): boolean {
    if (needle === "") return false;
    for (let at = this.text.indexOf(needle); at !== -1; at = this.text.indexOf(needle, at + 1)) {
      const before = at === 0 ? "" : this.text[at - 1]!;
      const after = this.text[at + needle.length] ?? "";
      if (!WORD.test(before) && !WORD.test(after)) return true;
    }
    return false;
  }

  /** `needle` (squeezed) is a token of the text with its separators removed: built on first use. */
  hasLookalike(needle: string): boolean {
    return this.lookalikes().hasToken(needle);
  }

  /** The text with its separators removed: built on first use. */
  lookalikes(): SqueezedText {
    this.squeezed ??= new SqueezedText(this.text);
    return this.squeezed;
  }

  /** Every span of the span length: built once, so a long argument is checked in one pass. */
  hasSpan(span: string): boolean {
    if (this.spans === undefined) {
      this.spans = new Set();
      for (let i = 0; i + UNTRUSTED_SPAN_LENGTH <= this.text.length; i++)
        this.spans.add(this.text.slice(i, i + UNTRUSTED_SPAN_LENGTH));
    }
    return this.spans.has(span);
  }
}

/**
 * What the user and trusted tools gave: their texts, and the results of trusted calls with
 * arguments, each of which vouches only for what its call's arguments did not hold.
 */
class TrustedSide {
  private readonly plain: Corpus;
  private readonly echoes: { readonly result: Corpus; readonly arguments: Corpus }[];

  constructor(sources: ValueSources) {
    this.plain = new Corpus(sources.trusted);
    this.echoes = (sources.echoes ?? []).map((e) => ({
      result: new Corpus([e.result]),
      arguments: new Corpus([e.arguments]),
    }));
  }

  /** `test` finds it in the user's words or a trusted result, and not only in an echo of its own call's arguments. */
  private vouched(test: (corpus: Corpus) => boolean): boolean {
    return test(this.plain) || this.echoes.some((e) => test(e.result) && !test(e.arguments));
  }

  hasValue(value: string, squeezed: string): boolean {
    return this.vouched((c) => c.hasToken(value) || c.hasLookalike(squeezed));
  }

  hasNumber(n: number): boolean {
    return this.vouched((c) => c.numbers.has(n));
  }

  hasSpan(span: string, squeezed: string): boolean {
    return this.vouched((c) => c.text.includes(span) || c.lookalikes().includes(squeezed));
  }
}

/** The lookups of one run's content, made once per round. @internal */
export class ValueProvenance {
  private readonly trusted: TrustedSide;
  private readonly untrusted: Corpus;

  constructor(sources: ValueSources) {
    this.trusted = new TrustedSide(sources);
    this.untrusted = new Corpus(sources.untrusted);
  }

  /** True when `value` (any depth) holds a value that came from untrusted content. */
  isUntrusted(value: unknown, depth = 0): boolean {
    if (depth > 64) return false;
    if (typeof value === "number") return this.untrustedNumber(value);
    if (typeof value === "string") return this.untrustedString(value);
    if (Array.isArray(value)) return value.some((item) => this.isUntrusted(item, depth + 1));
    if (typeof value === "object" && value !== null)
      return Object.values(value).some((item) => this.isUntrusted(item, depth + 1));
    return false;
  }

  private untrustedNumber(n: number): boolean {
    return Number.isFinite(n) && this.untrusted.numbers.has(n) && !this.trusted.hasNumber(n);
  }

  private untrustedString(raw: string): boolean {
    const value = normalize(raw);
    if (value === "") return false;
    // Found as it is, or as a lookalike (the same value with other separators: grouped, hyphenated).
    const squeezed = squeeze(value);
    const inUntrusted = this.untrusted.hasToken(value) || this.untrusted.hasLookalike(squeezed);
    if (inUntrusted && !this.trusted.hasValue(value, squeezed)) return true;
    // A number written as text ("250.00", "1,200") is the number it names.
    if (/^[-+]?\d[\d,]*(?:\.\d+)?$/.test(value) && this.untrustedNumber(Number(value.replace(/,/g, "")))) return true;
    if (value.length < UNTRUSTED_SPAN_LENGTH) return false;
    for (let i = 0; i + UNTRUSTED_SPAN_LENGTH <= value.length; i++) {
      const span = value.slice(i, i + UNTRUSTED_SPAN_LENGTH);
      // A span the trusted side holds, with other separators, is the trusted side's.
      if (this.untrusted.hasSpan(span) && !this.trusted.hasSpan(span, squeeze(span))) return true;
    }
    return false;
  }
}

/**
 * The names of a call's arguments whose values (at any depth) came from untrusted content, in the
 * arguments' order. Arguments that are not an object have none.
 *
 * @example
 * ```ts
 * untrustedArguments({ iban: "DE89...", amount: 250 }, { trusted: ["Pay my rent"], untrusted: [{ iban: "DE89..." }] }); // ["iban"]
 * ```
 */
export function untrustedArguments(args: unknown, sources: ValueSources | ValueProvenance): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const provenance = sources instanceof ValueProvenance ? sources : new ValueProvenance(sources);
  return Object.entries(args)
    .filter(([, value]) => provenance.isUntrusted(value))
    .map(([name]) => name);
}
