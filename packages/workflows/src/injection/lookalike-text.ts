/*
 * Values that look alike to a person: an IBAN printed in groups ("DE44 5001 0517 ..."), split with
 * hyphens or dots, or with zero-width characters between its digits is the same IBAN a model
 * copies without them. Argument provenance compares such values with their separators removed
 * (DESIGN, round 4). Written here: no package squeezes text while keeping where its tokens start
 * and end, which is what keeps "berlin" from matching inside "berlinale".
 */

/** Characters a text can hide inside a value: soft hyphen, Mongolian vowel separator, zero-width space and joiners, word joiner, BOM. */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/g;
/** Dashes that read as a hyphen (NFKC keeps them apart from `-`). */
const DASHES = /[\u2010-\u2015\u2212\u2E3A\u2E3B\uFE58\uFE63\uFF0D]/g;
/** What a lookalike comparison drops: white space, hyphens and dots. */
const SEPARATOR = /[\s.-]/;
const WORD = /[\p{L}\p{N}]/u;

/** The shortest value (separators removed) compared as a lookalike. */
export const LOOKALIKE_MIN_LENGTH = 6;

/**
 * A text as argument provenance compares it: NFKC, invisible characters removed, dashes as `-`,
 * lower case, runs of white space as one space, trimmed.
 *
 * @internal
 */
export const normalizeText = (text: string): string =>
  text.normalize("NFKC").replace(INVISIBLE, "").replace(DASHES, "-").toLowerCase().replace(/\s+/g, " ").trim();

/** A normalized text without its separators (what {@link SqueezedText} holds and looks up). @internal */
export const squeeze = (normalized: string): string => {
  let out = "";
  for (const ch of normalized) if (!SEPARATOR.test(ch)) out += ch;
  return out;
};

/**
 * A normalized text with its separators removed, and where in it a token may start and end (where
 * the original had no letter or digit right before or after): a squeezed value is found only as a
 * whole token of the original, grouped or not. @internal
 */
export class SqueezedText {
  private readonly text: string;
  private readonly startsAt: Uint8Array;
  private readonly endsAt: Uint8Array;

  constructor(normalized: string) {
    const chars = Array.from(normalized);
    const kept: string[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    chars.forEach((ch, i) => {
      if (SEPARATOR.test(ch)) return;
      kept.push(ch);
      // One flag per UTF-16 unit, so indexOf's positions read them directly.
      for (let u = 0; u < ch.length; u++) {
        starts.push(u === 0 && (i === 0 || !WORD.test(chars[i - 1]!)) ? 1 : 0);
        ends.push(u === ch.length - 1 && (i === chars.length - 1 || !WORD.test(chars[i + 1]!)) ? 1 : 0);
      }
    });
    this.text = kept.join("");
    this.startsAt = Uint8Array.from(starts);
    this.endsAt = Uint8Array.from(ends);
  }

  /** `needle` (squeezed) occurs anywhere: a span of a longer value. */
  includes(needle: string): boolean {
    return this.text.includes(needle);
  }

  /** `needle` (squeezed) occurs starting and ending where the original had token edges. */
  hasToken(needle: string): boolean {
    if (needle.length < LOOKALIKE_MIN_LENGTH) return false;
    for (let at = this.text.indexOf(needle); at !== -1; at = this.text.indexOf(needle, at + 1))
      if (this.startsAt[at] === 1 && this.endsAt[at + needle.length - 1] === 1) return true;
    return false;
  }
}
