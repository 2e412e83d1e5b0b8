import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, type Redactor } from "./create-redactor.js";
import { SEPARATOR } from "./joined-scan.js";
import type { RedactionOptions } from "./redaction.options.js";

// redactValue scans the strings of a value joined (joined-scan.ts). Its output must be what
// scanning each string alone gives, over generated values that put secrets, near-secrets and the
// adversarial corpus's inputs next to each other in lists and objects. (Until the change was
// merged this file also compared both with a copy of the redactor as it was: equal over 20,000
// generated values.)

const N = 2_000;
/** The inputs of redaction.adversarial.test.ts, shorter (the scan's cost is not what is tested here). */
const ADVERSARIAL = [
  "1".repeat(N),
  "1 ".repeat(N / 2),
  "12-".repeat(N / 3),
  "@".repeat(N),
  ".".repeat(N),
  "@.".repeat(N / 2),
  `${"a".repeat(N)}@`,
  `x@${"a.".repeat(N / 2)}`,
  `eyJ${"A".repeat(N)}`,
  ` eyJ${"a".repeat(200)}`.repeat(5),
  `eyJ${"a".repeat(50)}.`.repeat(20),
  "-----BEGIN PRIVATE KEY-----".repeat(20),
  `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(N)}`,
  "password=".repeat(50),
  "Bearer ".repeat(50),
  "sk-".repeat(50),
  `DE89${"1".repeat(N)}`,
  "AB12".repeat(N / 4),
  "+(1)".repeat(N / 4),
];

/** Secrets, and texts that are secrets only together with what comes before or after them. */
const SECRETS = [
  "jane@corp.example",
  "4111 1111 1111 1111",
  "4111111111111111",
  "4111 1111",
  "1111 1111",
  "+1 415 555 2671",
  "(415) 555-2671",
  "415",
  "555-2671",
  "123-45-6789",
  "DE89 3704 0044 0532 0130 00",
  "DE89370400440532013000",
  "sk-abcdefghijklmnopqrstu123",
  "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "AKIAABCDEFGHIJKLMNOP",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij",
  "Bearer abc123defg456",
  "Bearer",
  " abc123defg456",
  "password=hunter2",
  "password",
  "=hunter2",
  "-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----",
  "-----BEGIN PRIVATE KEY-----MIIabc",
  "jane@",
  "corp.example",
  "support@example.com",
  "a;b",
  SEPARATOR,
  `x${SEPARATOR}jane@corp.example`,
  "\u0000",
  ";",
];

const text = fc.oneof(
  fc.constantFrom(...SECRETS),
  fc.constantFrom(...ADVERSARIAL),
  fc.string({ maxLength: 20 }),
  fc
    .tuple(
      fc.constantFrom(...SECRETS),
      fc.constantFrom("", " ", ";", "-", "1", "a", "\n", '"'),
      fc.string({ maxLength: 8 }),
    )
    .map(([s, glue, noise]) => `${noise}${glue}${s}${glue}`),
);
const key = fc.oneof(text, fc.constantFrom("id", "email", "password", "apiKey", "note", "token_count"));
const value = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.integer(),
    fc.constantFrom(4111111111111111, 4111111111111112, 12, null, true, 1.5),
    fc.array(tie("node"), { maxLength: 6 }),
    fc.dictionary(key, tie("node"), { maxKeys: 5 }),
  ),
})).node;

const OPTIONS: RedactionOptions[] = [
  {},
  { allow: ["support@example.com", /^4111/] },
  { detectors: ["email", "card", "phone"] },
  {
    patterns: [
      { name: "ticket", pattern: /\bT-\d{3}\b/ },
      { name: "semi", pattern: /;.\u0000?/ },
    ],
  },
  { redactFieldNames: false },
];

/**
 * What scanning each string alone gives: a value that is not plain JSON (here, beside a Map) takes
 * the redactor's walk, which scans every string and key by itself, as redactValue did before.
 */
function oneByOne(redactor: Redactor, input: unknown): unknown {
  return (redactor.redactValue({ input, notPlain: new Map() }) as { input: unknown }).input;
}

function same(redactor: Redactor, input: unknown): void {
  expect(redactor.redactValue(input)).toEqual(oneByOne(redactor, input));
}

describe("redactValue scans a value's strings in one pass", () => {
  OPTIONS.forEach((options, i) => {
    it(`gives what scanning each string alone gives (options #${i})`, () => {
      const redactor = createRedactor(options);
      fc.assert(
        fc.property(value, (input) => same(redactor, input)),
        { numRuns: 400 },
      );
    });
  });

  it("finds every secret the adversarial corpus hides, next to each other in one value", () => {
    const redactor = createRedactor();
    const input = {
      corpus: ADVERSARIAL.map((s) => `${s} jane@corp.example 123-45-6789`),
      pairs: ADVERSARIAL.flatMap((s) => SECRETS.map((secret) => [s, secret])),
    };
    same(redactor, input);
    const out = JSON.stringify(redactor.redactValue(input));
    expect(out).not.toContain("jane@corp.example");
    expect(out).not.toContain("123-45-6789");
  });
});
