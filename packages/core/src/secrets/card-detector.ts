import { DigitRuns, digitRunDetector, ringSlots, type StartPattern, slot } from "./digit-runs.js";
import type { TextDetector } from "./text-detector.js";

// Why a scanner over digit runs rather than a regex: see digit-runs.ts.

const SPACE = 32;
const DASH = 45;
/**
 * Where a card number may start: its first 4 digits, then loosely the shapes of `lastCardRun`
 * (4-4-4-x or 4-6-4 after one repeated separator, or a run of 13 to 19 digits).
 */
const CARD_START: StartPattern = {
  pattern: /(?<![0-9])[0-9]{4}(?=([ -])[0-9]{4}\1[0-9]{4}\1[0-9]|([ -])[0-9]{6}\2[0-9]{4}|[0-9]{9,15}(?![0-9]))/g,
  length: 4,
};

/** Shortest and longest card number, in digits. */
const CARD_DIGITS = { min: 13, max: 19 } as const;

/** `d` doubled as the Luhn check does: 7 → 14 → 1 + 4 = 5. */
const doubled = (d: number): number => (d < 5 ? d * 2 : d * 2 - 9);

/**
 * The runs of a text with what the Luhn check needs of each, worked out once when the run is read,
 * so a number of several runs is checked without reading its digits again.
 */
class CardRuns extends DigitRuns {
  /** Luhn sum of the run's digits when its last digit is not doubled, and when it is. */
  private readonly sumLastKept = ringSlots();
  private readonly sumLastDoubled = ringSlots();
  /** The digit every digit of the run is, or -1 when they differ. */
  private readonly uniformDigit = ringSlots();

  /**
   * Whether the digits of runs `first` to `last` pass the Luhn check as one number (what separates
   * the runs ignored). One digit repeated fails, as in `luhnValid`.
   */
  luhnValid(first: number, last: number): boolean {
    let sum = 0;
    let lastDoubled = false;
    let uniform = this.uniformDigit[slot(last)]!;
    for (let k = last; k >= first; k--) {
      const i = slot(k);
      sum += lastDoubled ? this.sumLastDoubled[i]! : this.sumLastKept[i]!;
      if (this.digits(k) % 2 === 1) lastDoubled = !lastDoubled;
      if (this.uniformDigit[i] !== uniform) uniform = -1;
    }
    return uniform === -1 && sum % 10 === 0;
  }

  protected override readNext(): boolean {
    if (!super.readNext()) return false;
    const k = this.read - 1;
    const i = slot(k);
    const start = this.start(k);
    const digits = this.digits(k);
    if (digits > CARD_DIGITS.max) return true; // in no card: no sums needed
    // Sums both ways: doubling the digits at even offsets from the start, or at odd ones.
    let evenDoubled = 0;
    let oddDoubled = 0;
    let uniform = this.text.charCodeAt(start) - 48;
    for (let offset = 0; offset < digits; offset++) {
      const d = this.text.charCodeAt(start + offset) - 48;
      evenDoubled += offset % 2 === 0 ? doubled(d) : d;
      oddDoubled += offset % 2 === 0 ? d : doubled(d);
      if (d !== uniform) uniform = -1;
    }
    // The last digit is at an even offset when the run has an odd length.
    const lastAtEven = digits % 2 === 1;
    this.sumLastDoubled[i] = lastAtEven ? evenDoubled : oddDoubled;
    this.sumLastKept[i] = lastAtEven ? oddDoubled : evenDoubled;
    this.uniformDigit[i] = uniform;
    return true;
  }
}

/**
 * The last run of the card number that starts at run `first`, or -1 when it starts none: 13 to 19
 * digits in one run, or runs grouped as cards are printed, all after the same separator (a space or
 * a dash): 4-4-4-(1 to 7) digits (Visa, Mastercard and most others) or 4-6-(4 or 5) (American
 * Express). The Luhn check is left to the caller.
 */
function lastCardRun(runs: CardRuns, first: number): number {
  const digits = runs.digits(first);
  if (digits >= CARD_DIGITS.min && digits <= CARD_DIGITS.max) return first;
  if (digits !== 4 || !runs.has(first + 2)) return -1;
  const separator = runs.separatorBefore(first + 1);
  if ((separator !== SPACE && separator !== DASH) || runs.separatorBefore(first + 2) !== separator) return -1;
  const second = runs.digits(first + 1);
  const third = runs.digits(first + 2);
  if (second === 6 && (third === 4 || third === 5)) return first + 2;
  if (second !== 4 || third !== 4 || !runs.has(first + 3) || runs.separatorBefore(first + 3) !== separator) return -1;
  const fourth = runs.digits(first + 3);
  return fourth >= 1 && fourth <= 7 ? first + 3 : -1;
}

/** Card numbers that pass the Luhn check, in one run of digits or grouped. @internal */
export const cardDetector: TextDetector = digitRunDetector<CardRuns>({
  name: "card",
  start: CARD_START,
  createRuns: () => new CardRuns(),
  lastRun: (runs, first) => {
    const last = lastCardRun(runs, first);
    return last !== -1 && runs.luhnValid(first, last) ? last : -1;
  },
  spanStart: (runs, first) => runs.start(first),
  spanEnd: (runs, last) => runs.end(last),
});
