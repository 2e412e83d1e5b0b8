import type { TextDetector } from "./text-detector.js";
import { isDigit, SpanRewriter } from "./text-scan.js";

// Card and phone numbers are found over the runs of digits of a text, not by regexes alone. With a
// regex, a candidate that the checksum or shape check rejects sends the search back to one
// character after its start, so that a number overlapping it is still found. On digit-dense text
// (spaced digits, a 0/1 grid, groups that are almost card numbers) nearly every position starts a
// candidate, and each retry matched up to the pattern's bound again: 2 to 16 MB/s, against hundreds
// on prose. Here each run of digits is read once, into a ring of the last few runs; a detector tries
// runs in order as the start of a number and looks at a bounded number of runs after it (4 for a
// card, 15 for a phone), so the work is linear with a small constant. A native regex search skips
// the stretches where no number can start (see `hasStart`), which keeps text that is dense in
// digits but holds no candidate near the speed of prose.

/** Runs kept readable: the longest window (15 one-digit phone groups) and one more. @internal */
export const RING = 16;

/** Where run `k` is kept in a ring's arrays (RING is a power of two). @internal */
export const slot = (k: number): number => k & (RING - 1);

/** An array of {@link RING} numbers, for what a ring keeps of each run. @internal */
export const ringSlots = (): number[] => new Array<number>(RING).fill(0);

const NEXT_DIGIT = /[0-9]/g;
const DIGITS = /[0-9]*/y;
/** Where digits are looked for by hand before a native search: the next one is usually this close. */
const NEAR = 16;

/** Where the first digit at or after `from` is, or -1. */
function nextDigit(text: string, from: number): number {
  const near = Math.min(from + NEAR, text.length);
  for (let i = from; i < near; i++) if (isDigit(text.charCodeAt(i))) return i;
  if (near === text.length) return -1;
  NEXT_DIGIT.lastIndex = near;
  return NEXT_DIGIT.test(text) ? NEXT_DIGIT.lastIndex - 1 : -1;
}

/** Where the run of digits that goes on at `from` ends. */
function digitRunEnd(text: string, from: number): number {
  DIGITS.lastIndex = from;
  DIGITS.test(text);
  return DIGITS.lastIndex;
}

/**
 * Where a number may start, found by a native search: a global regex whose match is the first
 * `length` characters of a number that may start there (a fixed number, so that the match gives
 * the start; the rest of what is required goes in a lookahead). A pattern that begins with more
 * than one required character is also much faster to search for than one that begins with one.
 * @internal
 */
export interface StartPattern {
  readonly pattern: RegExp;
  readonly length: number;
}

/** Where `start` next matches in `text` at or after `from`, or -1. @internal */
export function nextStart(text: string, from: number, start: StartPattern): number {
  start.pattern.lastIndex = from;
  return start.pattern.test(text) ? start.pattern.lastIndex - start.length : -1;
}

/**
 * The runs of digits of a text, in order, each read once. Runs are numbered from 0; the last
 * {@link RING} read stay readable, so a caller asks for run `k` only while it needs no run before
 * `k - 15`. Subclasses keep more about each run by overriding {@link readNext}. A detector keeps
 * one between calls and {@link reset}s it for each text: texts are often short (the strings of a
 * record), and allocating a ring for each cost more than reading it.
 * @internal
 */
export class DigitRuns {
  private readonly starts = ringSlots();
  private readonly ends = ringSlots();
  /** How many runs have been read. */
  protected read = 0;
  /** Where the next run is looked for. */
  private at = 0;
  private current = "";

  /** The text being read. */
  get text(): string {
    return this.current;
  }

  /** Starts over on `text`, looking for the first run at `from`. Returns the ring itself. */
  reset(text: string, from = 0): this {
    this.current = text;
    this.read = 0;
    this.at = from;
    return this;
  }

  /** Reads runs up to run `k`; false when the text has no run `k`. */
  has(k: number): boolean {
    while (this.read <= k) if (!this.readNext()) return false;
    return true;
  }

  /**
   * Like {@link has}, for run `k` as the start of a number: when it is not read yet, the runs
   * before the next place `start` matches are skipped unread, as no number starts in them.
   */
  hasStart(k: number, start: StartPattern): boolean {
    if (this.read > k) return true;
    const at = nextStart(this.text, this.at, start);
    if (at === -1) return false;
    this.at = at;
    return this.has(k);
  }

  /** Where run `k` starts. */
  start(k: number): number {
    return this.starts[slot(k)]!;
  }

  /** Where run `k` ends (one past its last digit). */
  end(k: number): number {
    return this.ends[slot(k)]!;
  }

  /** How many digits run `k` has. */
  digits(k: number): number {
    return this.end(k) - this.start(k);
  }

  /** The character between runs `k - 1` and `k` when exactly one separates them, else -1. */
  separatorBefore(k: number): number {
    return k > 0 && this.start(k) - this.end(k - 1) === 1 ? this.text.charCodeAt(this.start(k) - 1) : -1;
  }

  /** Reads the next run as run number `read` (then counts it); false at the end of the text. */
  protected readNext(): boolean {
    const start = nextDigit(this.text, this.at);
    if (start === -1) {
      this.at = this.text.length;
      return false;
    }
    let end = start + 1;
    while (end - start < NEAR && isDigit(this.text.charCodeAt(end))) end++;
    if (isDigit(this.text.charCodeAt(end))) end = digitRunEnd(this.text, end);
    this.starts[slot(this.read)] = start;
    this.ends[slot(this.read)] = end;
    this.at = end;
    this.read++;
    return true;
  }
}

/**
 * What a detector over digit runs needs to know: where a number may start, the runs it reads, and
 * where the number that starts at a run ends. @internal
 */
export interface DigitRunScan<R extends DigitRuns> {
  readonly name: string;
  readonly start: StartPattern;
  readonly createRuns: () => R;
  /** The last run of the number that starts at run `first`, or -1 when none does. */
  lastRun(runs: R, first: number): number;
  /** Where in the text the number from run `first` to run `last` begins and ends. */
  spanStart(runs: R, first: number): number;
  spanEnd(runs: R, last: number): number;
}

const HAS_DIGIT = /[0-9]/;

/**
 * A detector that reads `text` once as digit runs and, from each run where a number may start,
 * redacts the number `scan` finds, then goes on after it. The ring of runs is kept between calls
 * (taken while in use: a call made from within `mark` makes its own), so scanning many small
 * strings allocates none. @internal
 *
 * @example
 * ```ts
 * const card = digitRunDetector({ name: "card", start: CARD_START, createRuns: () => new CardRuns(), ... });
 * ```
 */
export function digitRunDetector<R extends DigitRuns>(scan: DigitRunScan<R>): TextDetector {
  let idleRuns: R | undefined;
  return {
    name: scan.name,
    label: scan.name,
    apply: (text, mark) => {
      if (!HAS_DIGIT.test(text)) return text; // a faster search than the start pattern's
      const from = nextStart(text, 0, scan.start);
      if (from === -1) return text; // no number can start anywhere: nothing to read
      const out = new SpanRewriter(text);
      const runs = (idleRuns ?? scan.createRuns()).reset(text, from);
      idleRuns = undefined;
      for (let first = 0; runs.hasStart(first, scan.start); first++) {
        const last = scan.lastRun(runs, first);
        if (last === -1) continue;
        const start = scan.spanStart(runs, first);
        const end = scan.spanEnd(runs, last);
        out.replace(start, end, mark(text.slice(start, end)));
        first = last;
      }
      idleRuns = runs.reset(""); // keep the ring, not the text
      return out.result();
    },
  };
}
