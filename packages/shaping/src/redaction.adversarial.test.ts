import { describe, expect, it } from "vitest";
import { createRedactor } from "./create-redactor.js";

// Inputs that make backtracking patterns take quadratic or exponential time. Every detector must
// finish on them (a hang fails through vitest's timeout) and still find the secret placed after them.
const { redactText } = createRedactor();
const N = 100_000;

const adversarial: Record<string, string> = {
  "a run of digits": "1".repeat(N),
  "digits and spaces": "1 ".repeat(N / 2),
  "digits and dashes": "12-".repeat(N / 3),
  "a run of @": "@".repeat(N),
  "a run of dots": ".".repeat(N),
  "@ and dots": "@.".repeat(N / 2),
  "letters then @": `${"a".repeat(N)}@`,
  "dotted labels without a TLD": `x@${"a.".repeat(N / 2)}`,
  "an almost-JWT": `eyJ${"A".repeat(N)}`,
  "almost-JWTs back to back": ` eyJ${"a".repeat(200)}`.repeat(N / 204),
  "one dot JWTs": `eyJ${"a".repeat(50)}.`.repeat(N / 54),
  "BEGIN headers without END": "-----BEGIN PRIVATE KEY-----".repeat(N / 27),
  "an endless key body": `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(N)}`,
  "key=value without values": "password=".repeat(N / 9),
  "Bearer without token": "Bearer ".repeat(N / 7),
  "sk- prefixes": "sk-".repeat(N / 3),
  "IBAN-like runs": `DE89${"1".repeat(N)}`,
  "upper-case runs": "AB12".repeat(N / 4),
  "parentheses and plus": "+(1)".repeat(N / 4),
};

describe("redaction on adversarial input", () => {
  for (const [name, input] of Object.entries(adversarial)) {
    it(`finishes on ${name} and still finds a secret after it`, () => {
      const out = redactText(`${input} jane@corp.example 123-45-6789`);
      expect(out.endsWith(" [REDACTED:email] [REDACTED:ssn]")).toBe(true);
    });
  }

  it("finishes on 1 MB of mixed adversarial text", () => {
    const mixed = Object.values(adversarial)
      .map((s) => s.slice(0, 60_000))
      .join(" ");
    expect(redactText(mixed).length).toBeGreaterThan(0);
  });
});
