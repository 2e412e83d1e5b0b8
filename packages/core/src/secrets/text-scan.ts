// Character tests and a rewriter shared by the hand-written detectors. The tests take a char code
// and are false for NaN, which `charCodeAt` returns outside the text, so callers may look one
// character before the start or after the end without a bounds check.

/** `c` is 0-9. @internal */
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** `c` is A-Z. */
const isUpper = (c: number): boolean => c >= 65 && c <= 90;

/** `c` is A-Z, a-z or 0-9. */
const isAlphanumeric = (c: number): boolean => isDigit(c) || isUpper(c) || (c >= 97 && c <= 122);

/** `c` is a regex word character: A-Z, a-z, 0-9 or `_`. @internal */
export const isWordChar = (c: number): boolean => isAlphanumeric(c) || c === 95;

/**
 * Builds a detector's output: the text between replaced spans as it was, each span's replacement in
 * its place. Spans must come in order and must not overlap.
 * @internal
 */
export class SpanRewriter {
  private out = "";
  private copied = 0;

  constructor(private readonly text: string) {}

  /** Puts `replacement` in place of `text[start, end)`. */
  replace(start: number, end: number, replacement: string): void {
    this.out += this.text.slice(this.copied, start) + replacement;
    this.copied = end;
  }

  /** The rewritten text (the text itself when nothing was replaced). */
  result(): string {
    return this.copied === 0 ? this.text : this.out + this.text.slice(this.copied);
  }
}
