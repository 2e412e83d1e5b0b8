import { safeJsonStringify } from "@needlework/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor } from "./create-redactor.js";

const { redactText, redactValue } = createRedactor();

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const ALNUM = LOWER + UPPER + DIGITS;
const B64URL = `${ALNUM}_-`;

function luhnComplete(body: string): string {
  for (let check = 0; check <= 9; check++) {
    const digits = body + check;
    let sum = 0;
    for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
      let d = Number(digits[i]);
      if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error("unreachable");
}

function ibanComplete(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`]
    .map((c) => (c >= "A" && c <= "Z" ? String(c.charCodeAt(0) - 55) : c))
    .join("");
  let remainder = 0;
  for (const c of numeric) remainder = (remainder * 10 + Number(c)) % 97;
  return `${country}${String(98 - remainder).padStart(2, "0")}${bban}`;
}

const group4 = (s: string, sep: string) => s.match(/.{1,4}/g)!.join(sep);

/** One secret of each kind the default detectors promise to remove. */
const secret = fc.oneof(
  fc
    .tuple(chars(LOWER + DIGITS, 1, 12), chars(LOWER, 1, 10), chars(LOWER, 2, 6))
    .map(([local, domain, tld]) => `${local}@${domain}.${tld}`),
  fc
    .tuple(fc.constantFrom("4", "51", "55", "37"), chars(DIGITS, 12, 12), fc.constantFrom("", " ", "-"))
    .map(([prefix, body, sep]) => {
      const number = luhnComplete((prefix + body).slice(0, 15));
      return sep === "" ? number : group4(number, sep);
    }),
  fc
    .tuple(
      fc.integer({ min: 1, max: 899 }).filter((n) => n !== 666),
      fc.integer({ min: 1, max: 99 }),
      fc.integer({ min: 1, max: 9999 }),
    )
    .map(([a, g, s]) => `${String(a).padStart(3, "0")}-${String(g).padStart(2, "0")}-${String(s).padStart(4, "0")}`),
  fc
    .tuple(
      fc.constantFrom(["DE", 18], ["FR", 23], ["NL", 14]) as fc.Arbitrary<[string, number]>,
      chars(DIGITS, 23, 23),
      fc.boolean(),
    )
    .map(([[country, n], digits, spaced]) => {
      const iban = ibanComplete(country, digits.slice(0, n));
      return spaced ? group4(iban, " ") : iban;
    }),
  fc
    .tuple(
      chars("23456789", 1, 1),
      chars(DIGITS, 2, 2),
      chars("23456789", 1, 1),
      chars(DIGITS, 6, 6),
      fc.integer({ min: 0, max: 3 }),
    )
    .map(([a, b, c, d, style]) => {
      const area = a + b;
      const exchange = c + d.slice(0, 2);
      const line = d.slice(2);
      return [
        `+1 ${area} ${exchange} ${line}`,
        `(${area}) ${exchange}-${line}`,
        `${area}-${exchange}-${line}`,
        `+1${area}${exchange}${line}`,
      ][style]!;
    }),
  fc
    .tuple(chars(B64URL, 10, 40), chars(B64URL, 10, 80), chars(B64URL, 10, 43))
    .map(([h, p, s]) => `eyJ${h}.eyJ${p}.${s}`),
  chars(ALNUM, 24, 48).map((k) => `sk-${k}`),
  chars(ALNUM, 36, 36).map((k) => `ghp_${k}`),
  chars(UPPER + DIGITS, 16, 16).map((k) => `AKIA${k}`),
  fc.tuple(chars(ALNUM, 8, 40), chars(DIGITS, 1, 3)).map(([t, d]) => `Bearer ${t}${d}`),
  chars(`${ALNUM}+/`, 64, 200).map(
    (body) => `-----BEGIN PRIVATE KEY-----\n${body.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----`,
  ),
);

/** The part of a planted secret that must not survive (a bearer token's scheme word may stay). */
const sensitive = (planted: string) => (planted.startsWith("Bearer ") ? planted.slice(7) : planted);

// Separators a secret sits between in real text; the surrounding noise is otherwise arbitrary.
const around = fc.tuple(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(" ", "\n", "\t", ": ", " (", ", ", '"', "'", "<", "="),
  fc.constantFrom(" ", "\n", "\t", ") ", ", ", ". ", '"', "'", ">", ";"),
  fc.string({ maxLength: 30 }),
);

describe("redaction properties", () => {
  it("removes every planted secret from arbitrary text", () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 4 }), around, (secrets, [before, open, close, after]) => {
        const text = secrets.map((s) => `${before}${open}${s}${close}${after}`).join("");
        const out = redactText(text);
        for (const s of secrets) expect(out).not.toContain(sensitive(s));
      }),
      { numRuns: 300 },
    );
  });

  it("removes every planted secret from arbitrary values, keys included", () => {
    const planted = fc
      .tuple(secret, around)
      .map(([s, [before, open, close, after]]) => ({ secret: s, text: `${before}${open}${s}${close}${after}` }));
    fc.assert(
      fc.property(fc.array(planted, { minLength: 1, maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), (plants, noise) => {
        const value = {
          noise,
          list: plants.map((p) => p.text),
          nested: { deeper: [{ note: plants[0]!.text }] },
          [plants[0]!.text]: 1,
          map: new Map([["k", plants[plants.length - 1]!.text]]),
        };
        const out = safeJsonStringify(redactValue(value));
        for (const p of plants) expect(out).not.toContain(sensitive(p.secret));
      }),
      { numRuns: 150 },
    );
  });

  it("removes the whole value of secret-named fields", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("password", "apiKey", "client_secret", "accessToken", "DB_PASSWORD", "authorization"),
        chars(ALNUM, 8, 30),
        (key, value) => {
          const out = safeJsonStringify(redactValue({ user: "u", [key]: value, nested: [{ [key]: value }] }));
          expect(out).not.toContain(value);
        },
      ),
      { numRuns: 100 },
    );
  });
});
