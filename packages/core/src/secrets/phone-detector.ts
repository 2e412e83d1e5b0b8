import { DigitRuns, digitRunDetector, ringSlots, type StartPattern, slot } from "./digit-runs.js";
import type { TextDetector } from "./text-detector.js";
import { isWordChar } from "./text-scan.js";

// Why a scanner over digit runs rather than a regex: see digit-runs.ts.

const SPACE = 32;
const PLUS = 43;
const DASH = 45;
const DOT = 46;
const OPEN = 40;
const CLOSE = 41;
/** The join of two groups by 2 or 3 separator characters: not one separator of a date or an IP. */
const SEVERAL = 1;
const MAX_SEPARATORS = 3;
const isSeparator = (c: number): boolean => c === SPACE || c === DOT || c === DASH;
/**
 * Where a phone number may start, looser than the rules below: a `+` and a digit, with 7 more
 * digits at most five separators or brackets apart; or a bracket or a digit and a digit, the start
 * of three groups of digits (the first of 2 to 4) joined by separators, but not of an ISO date.
 */
const PHONE_START: StartPattern = {
  pattern:
    /(?<![\w+])(?:\+[0-9](?=(?:[ .()-]{0,5}[0-9]){7})|\([0-9](?=[0-9]{1,3}\)[ .-]{0,3}[0-9]{2,4}[ .-]{1,3}[0-9])|[0-9]{2}(?![0-9]{2}-[0-9]{2}-[0-9]{2})(?=[0-9]{0,2}[ .-]{1,3}[0-9]{2,4}[ .-]{1,3}[0-9]))/g,
  length: 2,
};

/**
 * What a phone number holds. International, after a `+`: 8 to 15 digits (E.164) in groups of up to
 * 12. National: 3 to 5 groups of 2 to 4 digits, 10 or 11 digits in all. A bracketed area code,
 * `(415)`, of up to 4 digits may come first, or second after the country code. Groups are joined
 * by 1 to 3 spaces, dots or dashes (`415 - 555 - 2671`).
 */
const INTERNATIONAL = { minDigits: 8, maxDigits: 15, minGroup: 1, maxGroup: 12, minGroups: 1, maxGroups: 15 } as const;
const NATIONAL = { minDigits: 10, maxDigits: 11, minGroup: 2, maxGroup: 4, minGroups: 3, maxGroups: 5 } as const;
const BRACKETED_MAX_DIGITS = 4;
/** Country codes have 1 to 3 digits: a bracket may follow no longer group after a `+`. */
const MAX_COUNTRY_CODE = 3;

/** How a run of digits stands in a phone number: plain, after a `+`, or in brackets. */
const Kind = { Plain: 0, CountryCode: 1, Bracketed: 2 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/**
 * The runs of a text read as parts of phone numbers: each run's kind, and what joins it to the run
 * before, worked out once when the run is read.
 */
class PhoneRuns extends DigitRuns {
  private readonly kinds = ringSlots();
  private readonly joins = ringSlots();

  /** How run `k` stands: plain, after a `+`, or in brackets. */
  kind(k: number): Kind {
    return this.kinds[slot(k)] as Kind;
  }

  /**
   * The separator that joins run `k` to run `k - 1` in one number: a space, dot or dash; SEVERAL
   * for 2 or 3 of them (`415 - 555`); 0 for none, which only a bracket allows (`+1(415)555-2671`);
   * -1 when the runs are not joined.
   */
  joinBefore(k: number): number {
    return this.joins[slot(k)]!;
  }

  /** Where a number starting at run `k` starts: at its `+` or `(`, if any. */
  numberStart(k: number): number {
    return this.kind(k) === Kind.Plain ? this.start(k) : this.start(k) - 1;
  }

  /** Where a number ending at run `k` ends: after its `)`, if any. */
  numberEnd(k: number): number {
    return this.kind(k) === Kind.Bracketed ? this.end(k) + 1 : this.end(k);
  }

  /**
   * A number may start at run `k` unless a word character or a `+` comes just before it
   * (`v1.2.3`, `id42`, `1+2`).
   */
  mayStartAt(k: number): boolean {
    const before = this.text.charCodeAt(this.numberStart(k) - 1);
    return !isWordChar(before) && before !== PLUS;
  }

  protected override readNext(): boolean {
    if (!super.readNext()) return false;
    const k = this.read - 1;
    this.kinds[slot(k)] = this.readKind(k);
    this.joins[slot(k)] = k === 0 ? -1 : this.readJoin(k);
    return true;
  }

  private readKind(k: number): Kind {
    const before = this.text.charCodeAt(this.start(k) - 1);
    if (before === PLUS) return Kind.CountryCode;
    if (before === OPEN && this.text.charCodeAt(this.end(k)) === CLOSE) return Kind.Bracketed;
    return Kind.Plain;
  }

  /** A `+` starts a number; a bracketed area code comes first, or right after the country code. */
  private readJoin(k: number): number {
    const kind = this.kind(k);
    const previous = this.kind(k - 1);
    if (kind === Kind.CountryCode) return -1;
    if (kind === Kind.Bracketed && (previous !== Kind.CountryCode || this.digits(k - 1) > MAX_COUNTRY_CODE)) return -1;
    const from = this.numberEnd(k - 1);
    const gap = this.numberStart(k) - from;
    if (gap === 0) return kind === Kind.Bracketed || previous === Kind.Bracketed ? 0 : -1;
    if (gap > MAX_SEPARATORS) return -1;
    for (let i = from; i < from + gap; i++) if (!isSeparator(this.text.charCodeAt(i))) return -1;
    return gap === 1 ? this.text.charCodeAt(from) : SEVERAL;
  }
}

const isDateSeparator = (c: number): boolean => c === DASH || c === DOT;

/** `2024-01-15 1030` or `2024.01.15`: a date, the commonest digit run in tool output, is no phone. */
function looksLikeDate(runs: PhoneRuns, first: number): boolean {
  return (
    runs.digits(first) === 4 &&
    runs.digits(first + 1) <= 2 &&
    isDateSeparator(runs.joinBefore(first + 1)) &&
    isDateSeparator(runs.joinBefore(first + 2))
  );
}

/** `192.168.10.20`: four dotted groups of up to 3 digits. */
function looksLikeIp(runs: PhoneRuns, first: number, last: number): boolean {
  if (last - first !== 3) return false;
  for (let k = first; k <= last; k++) {
    if (runs.digits(k) > 3 || (k > first && runs.joinBefore(k) !== DOT)) return false;
  }
  return true;
}

/** `12 345 678 901`: an amount with spaces between its thousands. */
function looksLikeThousands(runs: PhoneRuns, first: number, last: number): boolean {
  if (last - first < 3 || runs.digits(first) > 3) return false;
  for (let k = first + 1; k <= last; k++) {
    if (runs.digits(k) !== 3 || runs.joinBefore(k) !== SPACE) return false;
  }
  return true;
}

/** Runs `first` to `last`, `digits` digits in all, make a national number rather than a date, an IP or an amount. */
function isNationalNumber(runs: PhoneRuns, first: number, last: number, digits: number): boolean {
  if (last - first + 1 < NATIONAL.minGroups || digits < NATIONAL.minDigits) return false;
  if (runs.kind(first) === Kind.Bracketed) return true;
  return !looksLikeDate(runs, first) && !looksLikeIp(runs, first, last) && !looksLikeThousands(runs, first, last);
}

/**
 * The last run of the longest phone number that starts at run `first`, or -1. Stops at the first
 * run no number could hold (not joined, too long, too short, past the digit limit): a window that
 * contains it is no phone number, nor is any longer one.
 */
function lastPhoneRun(runs: PhoneRuns, first: number): number {
  const international = runs.kind(first) === Kind.CountryCode;
  const limits = international ? INTERNATIONAL : NATIONAL;
  let digits = 0;
  let last = -1;
  for (let k = first; k < first + limits.maxGroups && runs.has(k); k++) {
    if (k > first && runs.joinBefore(k) === -1) break;
    const groupDigits = runs.digits(k);
    const maxGroup = runs.kind(k) === Kind.Bracketed ? BRACKETED_MAX_DIGITS : limits.maxGroup;
    if (groupDigits < limits.minGroup || groupDigits > maxGroup) break;
    digits += groupDigits;
    if (digits > limits.maxDigits) break;
    const isNumber = international ? digits >= INTERNATIONAL.minDigits : isNationalNumber(runs, first, k, digits);
    if (isNumber) last = k;
  }
  return last;
}

/**
 * Phone numbers: from the leftmost start, the longest, so `item 2 (415) 555-2671` keeps `item 2`
 * and `+1 415 555 2671` goes whole. @internal
 */
export const phoneDetector: TextDetector = digitRunDetector<PhoneRuns>({
  name: "phone",
  start: PHONE_START,
  createRuns: () => new PhoneRuns(),
  lastRun: (runs, first) => (runs.mayStartAt(first) ? lastPhoneRun(runs, first) : -1),
  spanStart: (runs, first) => runs.numberStart(first),
  spanEnd: (runs, last) => runs.numberEnd(last),
});
