import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens, TOKEN_ENCODINGS, type TokenEncoding } from "./tokenizer.js";
import { truncateValue } from "./truncate-value.js";

const budget = fc.integer({ min: 16, max: 400 });

/** The invariants every truncation keeps, whatever the input. */
function checkInvariants(input: unknown, maxTokens: number, encoding: TokenEncoding = "o200k_base"): void {
  const result = truncateValue(input, { maxTokens, maxListItems: 5, encoding });
  const text = JSON.stringify(result.value);
  expect(() => JSON.parse(text)).not.toThrow();
  const kept = countTokens(text, encoding);
  expect(result.keptTokens).toBe(kept);
  expect(kept).toBeLessThanOrEqual(maxTokens);
  if (!result.truncated) expect(result.value).toBe(input);
  else expect(result.originalTokens).toBeGreaterThan(maxTokens);
}

describe("truncateValue properties", () => {
  it("any JSON value: valid JSON within the token budget", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), budget, (value, maxTokens) => checkInvariants(value, maxTokens)),
      { numRuns: 150 },
    );
  });

  it("big arrays and long strings: valid JSON within the token budget", () => {
    const big = fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 50, maxLength: 400 }),
      fc.string({ minLength: 2000, maxLength: 20000, unit: "grapheme" }),
      fc.array(
        fc.record({
          id: fc.string(),
          status: fc.constantFrom("ok", "failed"),
          body: fc.string({ minLength: 100, maxLength: 3000 }),
        }),
        { minLength: 10, maxLength: 200 },
      ),
      fc.dictionary(fc.string({ maxLength: 40 }), fc.string({ maxLength: 400 }), { minKeys: 50, maxKeys: 300 }),
      fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 5, maxLength: 40 }).map((items) => JSON.stringify(items)),
    );
    fc.assert(
      fc.property(big, budget, (value, maxTokens) => checkInvariants(value, maxTokens)),
      { numRuns: 60 },
    );
  });

  it("CJK and emoji, in lists of records, nested values and long text: within the budget in both encodings", () => {
    const wide = fc.string({
      unit: fc.constantFrom(..."漢字仮名交じり文한국어中文测试かなカナ😀🎉👩‍👩‍👧🇩🇪👍🏽é "),
      maxLength: 400,
    });
    const key = fc.oneof(fc.constantFrom("id", "名前", "メール", "😀", "note"), wide);
    const value = fc.oneof(
      fc.array(fc.record({ id: fc.nat(), 名前: wide, note: wide }), { minLength: 1, maxLength: 120 }),
      fc.array(fc.dictionary(key, wide, { maxKeys: 4 }), { minLength: 1, maxLength: 80 }),
      fc.dictionary(key, fc.oneof(wide, fc.array(wide, { maxLength: 30 })), { maxKeys: 40 }),
      fc.array(wide, { maxLength: 60 }).map((parts) => parts.join("")),
      fc.array(fc.record({ id: fc.nat(), body: wide }), { maxLength: 40 }).map((rows) => JSON.stringify(rows)),
    );
    fc.assert(
      fc.property(value, budget, fc.constantFrom(...TOKEN_ENCODINGS), (input, maxTokens, encoding) =>
        checkInvariants(input, maxTokens, encoding),
      ),
      { numRuns: 150 },
    );
  });

  it("values JSON cannot carry as they are (BigInt, Map, Date, cycles) come out as valid JSON", () => {
    const odd = fc.oneof(
      fc.bigInt().map((n) => ({ n, list: Array.from({ length: 100 }, (_, i) => BigInt(i)) })),
      fc
        .array(fc.tuple(fc.string(), fc.string({ maxLength: 200 })), { maxLength: 80 })
        .map((entries) => new Map(entries)),
      fc.date({ noInvalidDate: false }).map((d) => ({ d, items: Array.from({ length: 200 }, () => d) })),
      fc.string({ maxLength: 300 }).map((s) => {
        const node: Record<string, unknown> = { s, children: [] as unknown[] };
        for (let i = 0; i < 50; i++) (node.children as unknown[]).push({ i, parent: node, s });
        return node;
      }),
    );
    fc.assert(
      fc.property(odd, budget, (value, maxTokens) => {
        const result = truncateValue(value, { maxTokens, maxListItems: 5 });
        if (!result.truncated) return;
        const text = JSON.stringify(result.value);
        expect(() => JSON.parse(text)).not.toThrow();
        expect(countTokens(text)).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 60 },
    );
  });
});
