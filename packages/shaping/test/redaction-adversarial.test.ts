import { describe, expect, it } from "vitest";
import { createRedactor, type DetectorName } from "../src/index.js";

// Text dense in digits once made the card and phone detectors retry at nearly every position
// (issue 16, item 12). Their speed is measured in bench/ (redaction-adversarial); these tests pin
// what the scanners find in such text: nothing in the noise itself, and every real number placed
// after it or inside it.
const { redactText } = createRedactor();
const only = (...detectors: DetectorName[]) => createRedactor({ detectors, redactFieldNames: false }).redactText;

const N = 100_000;
const CARD = "4111 1111 1111 1111";
const PHONE = "+1 415 555 2671";

/** `unit` repeated `times` times, about `N` characters by default. */
const fill = (unit: string, times = Math.ceil(N / unit.length)): string => unit.repeat(times);

/** Digit-dense text with no secret in it, by what it looks like: the unit it repeats. */
const noise: Record<string, string> = {
  "spaced digits": "1 ",
  "a 0/1 grid": "0 1 0 1\n",
  "groups that are almost card numbers": "4111 1111 1111 1112 ",
  "dashed groups that are almost card numbers": "4111-1111-1111-1112-",
  "16-digit runs that fail the Luhn check": "4111111111111112 ",
  "one long run of digits": "1",
  "dotted digits": "1.",
  "+1 over and over": "+1 ",
  "(415) over and over": "(415) ",
};

describe("card and phone numbers in text dense in digits", () => {
  for (const [name, unit] of Object.entries(noise)) {
    const text = fill(unit);

    it(`leaves ${name} as they are`, () => {
      expect(redactText(text)).toBe(text);
    });

    it(`finds a card and a phone number after ${name}`, () => {
      expect(redactText(`${text}, card ${CARD}, call ${PHONE}.`)).toBe(
        `${text}, card [REDACTED:card], call [REDACTED:phone].`,
      );
    });

    it(`finds a card and a phone number in the middle of ${name}`, () => {
      const half = fill(unit, Math.floor(N / 2 / unit.length));
      expect(redactText(`${half}, ${CARD}, ${PHONE}, ${half}`)).toBe(
        `${half}, [REDACTED:card], [REDACTED:phone], ${half}`,
      );
    });
  }

  it("finds every card among 5,000 near misses when every tenth is real", () => {
    const text = Array.from({ length: 5_000 }, (_, i) => (i % 10 === 9 ? CARD : "4111 1111 1111 1112")).join(" ");
    const out = only("card")(text);
    expect(out.match(/\[REDACTED:card\]/g)).toHaveLength(500);
    expect(out).not.toContain(CARD);
  });

  it("finds phone numbers written with brackets, a country code or spaced dashes among spaced digits", () => {
    const numbers = ["(415) 555-2671", "+44 (20) 7946 0958", "+1(415)555-2671", "415 - 555 - 2671", "01 23 45 67 89"];
    const text = numbers.map((n) => `${"7 ".repeat(1_000)}call ${n}.`).join("\n");
    const out = only("phone")(text);
    expect(out.match(/\[REDACTED:phone\]/g)).toHaveLength(numbers.length);
    expect(out).toBe(numbers.map(() => `${"7 ".repeat(1_000)}call [REDACTED:phone].`).join("\n"));
  });

  it("takes the longest number from the leftmost start, and no digit around it", () => {
    const phone = only("phone");
    expect(phone("call 1 2 3 4 5 6 7 8 9 or (415) 555-2671")).toBe("call 1 2 3 4 5 6 7 8 9 or [REDACTED:phone]");
    expect(phone("item 2 415 555 2671 x 3")).toBe("item 2 [REDACTED:phone] x 3");
    expect(phone("+44 20 7946 0958 1234 5678")).toBe("[REDACTED:phone] 1234 5678");
  });
});

describe("other detectors on text built to make them retry", () => {
  it("IBAN-like groups stay, and a real IBAN after them is found", () => {
    const text = fill("DE89 ");
    expect(redactText(text)).toBe(text);
    expect(redactText(`${text}pay DE89 3704 0044 0532 0130 00 now`)).toBe(`${text}pay [REDACTED:iban] now`);
  });

  it("groups that are almost SSNs are no SSN, and a real SSN after them is found", () => {
    const text = fill("123-45-678 ");
    expect(only("ssn")(text)).toBe(text);
    expect(only("ssn")(`${text}SSN 123-45-6789.`)).toBe(`${text}SSN [REDACTED:ssn].`);
  });

  it("secret assignments back to back each lose their value", () => {
    const text = "password=x ".repeat(10_000);
    expect(redactText(text)).toBe("password=[REDACTED:secret] ".repeat(10_000));
    expect(only("secret_assignment")("password=&token=abc123 and api_key: 'k1'")).toBe(
      "password=&token=[REDACTED:secret] and api_key: '[REDACTED:secret]'",
    );
  });
});
