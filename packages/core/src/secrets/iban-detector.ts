import { IBAN_LENGTHS, ibanValid } from "./secret-checks.js";
import type { TextDetector } from "./text-detector.js";
import { SpanRewriter } from "./text-scan.js";

// IBANs are checked at each candidate in place, not in a regex's replace callback. A candidate the
// checksum rejects sent the regex back to one character after its start, and text such as
// `DE89 DE89 DE89 ...` starts a candidate every five characters, each matched to its 44-character
// bound again and copied out with its captures (10 MB/s). Here a native search finds each
// candidate's first four characters, a sticky regex of the country's length matches the rest
// where it stands, and nothing is copied unless that shape fits.

/** Longest IBAN as written: 34 characters and a space after every four. */
const MAX_WRITTEN = 44;
/** Two capitals and two check digits, after no letter or digit. */
const IBAN_START = /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}/g;

/**
 * By country code (first letter × 26 + second letter): a sticky regex for the rest of its IBAN after
 * the first four characters: its length of capitals and digits, up to 3 spaces before each, and no
 * capital or digit after. Matching it natively is several times faster than a loop here.
 */
const BODY_BY_COUNTRY: (RegExp | undefined)[] = new Array(26 * 26);
for (const [country, length] of Object.entries(IBAN_LENGTHS)) {
  BODY_BY_COUNTRY[(country.charCodeAt(0) - 65) * 26 + (country.charCodeAt(1) - 65)] = new RegExp(
    `(?: {0,3}[A-Z0-9]){${length - 4}}(?![A-Z0-9])`,
    "y",
  );
}

/**
 * Where the IBAN starting at `start` (two capitals, two digits) ends, or -1: exactly its country's
 * length of capitals and digits, spaces between them allowed, at most {@link MAX_WRITTEN}
 * characters, no capital or digit right after, and a valid mod-97 check.
 */
function ibanEnd(text: string, start: number): number {
  const body = BODY_BY_COUNTRY[(text.charCodeAt(start) - 65) * 26 + (text.charCodeAt(start + 1) - 65)];
  if (body === undefined) return -1;
  body.lastIndex = start + 4;
  if (!body.test(text) || body.lastIndex - start > MAX_WRITTEN) return -1;
  const end = body.lastIndex;
  return ibanValid(text.slice(start, end).replaceAll(" ", "")) ? end : -1;
}

/** IBANs with their country's length and a valid mod-97 check, with or without spaces. @internal */
export const ibanDetector: TextDetector = {
  name: "iban",
  label: "iban",
  apply: (text, mark) => {
    const out = new SpanRewriter(text);
    IBAN_START.lastIndex = 0;
    while (IBAN_START.test(text)) {
      const start = IBAN_START.lastIndex - 4;
      const end = ibanEnd(text, start);
      if (end === -1) continue;
      out.replace(start, end, mark(text.slice(start, end)));
      IBAN_START.lastIndex = end;
    }
    return out.result();
  },
};
