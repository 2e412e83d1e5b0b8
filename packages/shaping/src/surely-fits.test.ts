import fc from "fast-check";
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { surelyFits } from "./surely-fits.js";
import { countTokens, TOKEN_ENCODINGS } from "./tokenizer.js";

/** Text of every kind a result holds: ASCII, CJK, emoji (surrogate pairs, ZWJ sequences), escapes. */
const anyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({
    unit: fc.constantFrom(...'漢字かなカナ한국어中文测试😀👩‍👩‍👧🇩🇪é\u0000\n"\\<|endoftext|> '),
    maxLength: 300,
  }),
);

describe("surelyFits", () => {
  it("rests on a token covering at least one UTF-8 byte, in both encodings", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const bytes = Buffer.byteLength(text, "utf8");
        for (const encoding of TOKEN_ENCODINGS) expect(countTokens(text, encoding)).toBeLessThanOrEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it("says a value fits exactly when its JSON's UTF-8 length is within the budget", () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 5 }), fc.integer({ min: 16, max: 2000 }), (texts, maxTokens) => {
        const value = { texts, n: texts.length };
        const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
        expect(surelyFits(value, maxTokens)).toBe(bytes <= maxTokens);
        if (bytes <= maxTokens) expect(countTokens(JSON.stringify(value))).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 500 },
    );
  });

  it("never says a value fits when its JSON has more tokens than the budget", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 16, max: 400 }), (value, maxTokens) => {
        if (surelyFits(value, maxTokens)) expect(countTokens(JSON.stringify(value))).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 300 },
    );
  });

  it("answers exactly for numbers, keys and texts of every length, whichever bound decides", () => {
    const key = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: "binary", maxLength: 6 }));
    const leaf = fc.oneof(anyText, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.dictionary(key, fc.oneof(leaf, fc.array(leaf, { maxLength: 6 })), { maxKeys: 8 });
    fc.assert(
      fc.property(value, fc.integer({ min: 16, max: 3000 }), (v, maxTokens) => {
        expect(surelyFits(v, maxTokens)).toBe(Buffer.byteLength(JSON.stringify(v), "utf8") <= maxTokens);
      }),
      { numRuns: 1000 },
    );
    // The longest JSON numbers: 25 characters each.
    const numbers = Array.from({ length: 40 }, () => -0.0000013061519997984816);
    const bytes = Buffer.byteLength(JSON.stringify(numbers), "utf8");
    expect(surelyFits(numbers, bytes)).toBe(true);
    expect(surelyFits(numbers, bytes - 1)).toBe(false);
    // Quotes and backslashes: two bytes each once escaped, in texts and in keys.
    for (const text of ['"'.repeat(300), "\\".repeat(300), "\u0001".repeat(100)]) {
      for (const v of [text, { [text]: 1 }]) {
        const size = Buffer.byteLength(JSON.stringify(v), "utf8");
        expect(surelyFits(v, size)).toBe(true);
        expect(surelyFits(v, size - 1)).toBe(false);
      }
    }
  });

  it("holds for escapes, emoji and control characters, the worst bytes per character", () => {
    for (const text of ["\u0001".repeat(40), "😀".repeat(40), '\n\t"\\'.repeat(20), "<|endoftext|>".repeat(5)]) {
      for (const maxTokens of [16, 100, 300, 1000]) {
        if (surelyFits(text, maxTokens)) expect(countTokens(JSON.stringify(text))).toBeLessThanOrEqual(maxTokens);
      }
    }
  });

  it("accepts small plain results and leaves everything else to the exact path", () => {
    expect(surelyFits(5, 1000)).toBe(true);
    expect(surelyFits({ id: "ORD-1", status: "shipped", lines: [1, 2, 3] }, 1000)).toBe(true);
    expect(surelyFits("x".repeat(200), 1000)).toBe(true); // 202 bytes
    expect(surelyFits("x".repeat(999), 1000)).toBe(false); // 1001 bytes
    expect(surelyFits("漢".repeat(333), 1000)).toBe(false); // 999 + 2 bytes
    expect(surelyFits(new Date(0), 1000)).toBe(false);
    expect(surelyFits({ at: new Map() }, 1000)).toBe(false);
    expect(surelyFits({ n: 1n }, 1000)).toBe(false);
    expect(surelyFits({ toJSON: () => "x" }, 1000)).toBe(false);
    expect(surelyFits(undefined, 1000)).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(surelyFits(cyclic, 1_000_000)).toBe(false);
    const hostile = Object.defineProperty({}, "x", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    });
    expect(surelyFits(hostile, 1000)).toBe(false);
  });
});
