import { cardDetector } from "./card-detector.js";
import { ibanDetector } from "./iban-detector.js";
import { phoneDetector } from "./phone-detector.js";
import type { Mark, TextDetector } from "./text-detector.js";
import { SpanRewriter } from "./text-scan.js";

/**
 * The built-in text detectors. Each replaces what it finds with `[REDACTED:<label>]`, the label
 * being the name except `secret_assignment`, whose values become `[REDACTED:secret]`.
 *
 * @example
 * ```ts
 * createRedactor({ detectors: ["email", "phone"] satisfies DetectorName[] });
 * ```
 */
export type DetectorName =
  | "private_key"
  | "jwt"
  | "bearer_token"
  | "api_key"
  | "secret_assignment"
  | "email"
  | "iban"
  | "card"
  | "ssn"
  | "phone";

export type { Mark, TextDetector } from "./text-detector.js";

// Every pattern here runs in linear time: every quantifier is bounded; a repeated group holds only
// one-character alternatives (never another quantifier), so there is one way to match a given text;
// a lookbehind keeps a match from being retried at every position inside a long run; and a scan
// never passes the delimiter that ends it. Checksums and shape checks run in the replace callback,
// on one bounded match at a time. Card and phone numbers and IBANs, where a rejected candidate is
// the rule on digit-dense text, have scanners of their own (card-detector.ts, phone-detector.ts,
// iban-detector.ts; why in digit-runs.ts); every detector is measured on adversarial input by
// bench/src/redaction-adversarial.bench.ts.

/**
 * What to put in place of one match: a replacement, or `undefined` when the match is no secret after
 * all (a failed checksum), in which case the search resumes one character after where the match
 * began, so a secret that overlaps a rejected candidate is still found.
 */
type Replace = (match: string, captures: readonly (string | undefined)[], mark: Mark) => string | undefined;

function regexDetector(
  name: DetectorName,
  label: string,
  pattern: RegExp,
  replace: Replace,
  hint?: (text: string) => boolean,
): TextDetector {
  return {
    name,
    label,
    apply: (text, mark) => {
      if (hint && !hint(text)) return text;
      const out = new SpanRewriter(text);
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        const replacement = replace(m[0], m.slice(1), mark);
        if (replacement === undefined) {
          pattern.lastIndex = m.index + 1;
          continue;
        }
        out.replace(m.index, m.index + m[0].length, replacement);
        if (m[0].length === 0) pattern.lastIndex++;
      }
      return out.result();
    },
  };
}

const whole: Replace = (match, _captures, mark) => mark(match);
const HAS_DIGIT = /[0-9]/;
const hasDigit = (text: string): boolean => HAS_DIGIT.test(text);

const privateKey = regexDetector(
  "private_key",
  "private_key",
  // A complete block: its body may hold `Proc-Type:` / `DEK-Info: AES-128-CBC,...` headers, spaces and
  // escaped newlines, but no run of dashes, so a scan never passes the next `-----` line. A block cut
  // off before its END line is redacted through its base64 only, not through the prose after it.
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:[A-Za-z0-9+/=\s:,.\\]|-(?!-)){0,20000}-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\r\n\\,]|-(?!-)|: |:){0,20000})/g,
  whole,
  (text) => text.includes("PRIVATE KEY"),
);

const jwt = regexDetector(
  "jwt",
  "jwt",
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,4096}\.[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,2048}/g,
  whole,
  (text) => text.includes("eyJ"),
);

const bearerToken = regexDetector(
  "bearer_token",
  "bearer_token",
  /\b(Bearer|bearer|BEARER|Basic|basic|BASIC|Token)([ \t]{1,4})([A-Za-z0-9._~+/=-]{8,4096})/g,
  (_match, [scheme, space, credential], mark) => {
    // Prose ("basic authentication") is not a credential: real ones hold a digit or are long.
    if (!hasDigit(credential!) && credential!.length < 20) return undefined;
    return `${scheme}${space}${mark(credential!)}`;
  },
);

const apiKey = regexDetector(
  "api_key",
  "api_key",
  new RegExp(
    "(?<![A-Za-z0-9_-])(?:" +
      [
        "sk-[A-Za-z0-9_-]{20,512}", // OpenAI, Anthropic (sk-ant-...), project keys (sk-proj-...)
        "[sr]k_(?:live|test)_[A-Za-z0-9]{16,255}", // Stripe secret and restricted keys
        "gh[pousr]_[A-Za-z0-9]{36,255}", // GitHub tokens
        "github_pat_[A-Za-z0-9_]{22,255}", // GitHub fine-grained tokens
        "(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])", // AWS access key ids
        "xox[abposr]-[A-Za-z0-9-]{10,255}", // Slack tokens
        "AIza[0-9A-Za-z_-]{35}", // Google API keys
        "glpat-[A-Za-z0-9_-]{20,64}", // GitLab tokens
        "npm_[A-Za-z0-9]{36}", // npm tokens
      ].join("|") +
      ")",
    "g",
  ),
  whole,
);

/** A secret's name and what assigns it, up to where its value starts. */
const SECRET_NAME =
  /(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key)["']?[ \t]{0,3}[:=][ \t]{0,3}["']?/gi;
/** A value, matched where the name ends. */
const SECRET_VALUE = /[^\s"'&,;<>[\]{}]{1,512}/y;

/**
 * `password=...`, `"api_key": "..."`, `?token=...`: the name stays, the value goes. Both parts are
 * matched in place (`test` and `lastIndex`), without a match array or copies of the name, which
 * made assignments that follow each other closely (`password=x password=x ...`) cost 17 MB/s.
 */
const secretAssignment: TextDetector = {
  name: "secret_assignment",
  label: "secret",
  apply: (text, mark) => {
    const out = new SpanRewriter(text);
    SECRET_NAME.lastIndex = 0;
    while (SECRET_NAME.test(text)) {
      const start = SECRET_NAME.lastIndex;
      SECRET_VALUE.lastIndex = start;
      // No value (`password=&`): the quotes and spaces the name took can start none either.
      if (!SECRET_VALUE.test(text)) continue;
      const end = SECRET_VALUE.lastIndex;
      out.replace(start, end, mark(text.slice(start, end)));
      SECRET_NAME.lastIndex = end;
    }
    return out.result();
  },
};

const isLocalChar = (c: number): boolean =>
  (c >= 97 && c <= 122) ||
  (c >= 65 && c <= 90) ||
  (c >= 48 && c <= 57) ||
  c === 46 ||
  c === 95 ||
  c === 37 ||
  c === 43 ||
  c === 45;
const isDomainChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 45;
const TLD = /\.[A-Za-z]{2,24}$/;

/**
 * Emails are found from each `@` outwards (at most 64 characters left, 253 right), so the cost is
 * linear whatever surrounds them: runs of `@`, dots or letters cost one step per character.
 */
const email: TextDetector = {
  name: "email",
  label: "email",
  apply: (text, mark) => {
    let at = text.indexOf("@");
    if (at === -1) return text;
    const out = new SpanRewriter(text);
    let copied = 0;
    while (at !== -1) {
      let start = at;
      while (start > copied && at - start < 64 && isLocalChar(text.charCodeAt(start - 1))) start--;
      while (start < at && text.charCodeAt(start) === 46) start++; // a local part does not start with a dot
      let end = at + 1;
      while (end < text.length && end - at <= 253 && isDomainChar(text.charCodeAt(end))) end++;
      while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--; // "mail a@b.com."
      const domain = text.slice(at + 1, end);
      if (start < at && TLD.test(domain) && !domain.startsWith(".") && !domain.includes("..")) {
        out.replace(start, end, mark(text.slice(start, end)));
        copied = end;
        at = text.indexOf("@", end);
      } else {
        at = text.indexOf("@", at + 1);
      }
    }
    return out.result();
  },
};

const ssn = regexDetector(
  "ssn",
  "ssn",
  /(?<![0-9-])(?!000|666|9[0-9]{2})[0-9]{3}([- ])(?!00)[0-9]{2}\1(?!0000)[0-9]{4}(?![0-9-])/g,
  whole,
  hasDigit,
);

/**
 * The built-in detectors in the order they run: the most specific first, so a JWT is not half
 * taken for something else and a card number is gone before the phone detector looks at digits.
 * @internal
 */
export const BUILT_IN_DETECTORS: readonly TextDetector[] = [
  privateKey,
  jwt,
  bearerToken,
  apiKey,
  secretAssignment,
  email,
  ibanDetector,
  cardDetector,
  ssn,
  phoneDetector,
];

/**
 * The names of the built-in detectors, in the order they run.
 *
 * @example
 * ```ts
 * createRedactor({ detectors: DETECTOR_NAMES.filter((d) => d !== "phone") });
 * ```
 */
export const DETECTOR_NAMES: readonly DetectorName[] = BUILT_IN_DETECTORS.map((d) => d.name as DetectorName);
