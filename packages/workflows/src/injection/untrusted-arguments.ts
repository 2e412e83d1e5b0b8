/*
 * Which argument values of a call came from untrusted content. Written here rather than taken from
 * a library: no package does provenance by value, and the rule is short. A value is untrusted when
 * it appears in an untrusted result and nowhere the user or a trusted tool could have given it:
 *   - a string (compared case- and space-insensitively) found whole, as a token, in an untrusted
 *     result and not in the user's input or a trusted result;
 *   - a string holding a span of UNTRUSTED_SPAN_LENGTH characters or more copied from an untrusted
 *     result (a paragraph pasted into an e-mail body) that the user's input and trusted results lack;
 *   - a number found (as a number, so "1,200.00" is 1200) in an untrusted result and not in the
 *     user's input or a trusted result.
 * A value the model made up or transformed (a sum, a translation) is not found anywhere: it passes.
 */

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
}

const normalize = (text: string): string => text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
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

/** The lookups of one run's content, made once per round. @internal */
export class ValueProvenance {
  private readonly trusted: Corpus;
  private readonly untrusted: Corpus;

  constructor(sources: ValueSources) {
    this.trusted = new Corpus(sources.trusted);
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
    return Number.isFinite(n) && this.untrusted.numbers.has(n) && !this.trusted.numbers.has(n);
  }

  private untrustedString(raw: string): boolean {
    const value = normalize(raw);
    if (value === "") return false;
    if (this.untrusted.hasToken(value) && !this.trusted.hasToken(value)) return true;
    // A number written as text ("250.00", "1,200") is the number it names.
    if (/^[-+]?\d[\d,]*(?:\.\d+)?$/.test(value) && this.untrustedNumber(Number(value.replace(/,/g, "")))) return true;
    if (value.length < UNTRUSTED_SPAN_LENGTH) return false;
    for (let i = 0; i + UNTRUSTED_SPAN_LENGTH <= value.length; i++) {
      const span = value.slice(i, i + UNTRUSTED_SPAN_LENGTH);
      if (this.untrusted.hasSpan(span) && !this.trusted.text.includes(span)) return true;
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
