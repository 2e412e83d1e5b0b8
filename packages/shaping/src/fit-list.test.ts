import type { JsonValue } from "@needlework/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitList } from "./fit-list.js";
import type { ShrinkRules } from "./json-shrink.js";
import { TokenCounter } from "./token-counter.js";
import { countTokens, TOKEN_ENCODINGS, tokenizerFor } from "./tokenizer.js";

const rules = (maxListItems: number): ShrinkRules => ({ maxListItems, isPreserved: () => false });

/** Text of every kind: ASCII, CJK, emoji, escapes, punctuation runs, spaces at the ends. */
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom(..."漢字かな한국😀👩‍👧🇩🇪é\u0000\n\"\\'/ .,;:!?{}[]-_0123456789abcXYZ"),
    maxLength: 40,
  }),
);
/** Keys as results have them, and keys that start with punctuation, spaces or marks. */
const key = fc.oneof(
  fc.constantFrom("id", "name", "email", "Id", "2fa", "漢字", "émoji", "_id", " x", "'s", "\u0301a", ""),
  text,
);
const record = fc.dictionary(
  key,
  fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
  {
    maxKeys: 5,
  },
);
const item = fc.oneof({ weight: 5, arbitrary: record }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });

describe("fitList", () => {
  for (const encoding of TOKEN_ENCODINGS) {
    it(`counts a list from its items exactly as the whole list counts (${encoding})`, () => {
      fc.assert(
        fc.property(fc.array(item, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 12 }), (list, max) => {
          const items = list as JsonValue[];
          // A budget large enough to keep every item: the list comes back whole, counted from its items.
          const whole = fitList(items, 1_000_000, new TokenCounter(tokenizerFor(encoding)), rules(50), undefined);
          expect(whole).toMatchObject({ whole: true, tokens: countTokens(JSON.stringify(items), encoding) });
          // A budget the first items fit in: they are kept with a marker, counted from their counts.
          const budget = countTokens(JSON.stringify(items), encoding) - 1;
          const cut = fitList(items, budget, new TokenCounter(tokenizerFor(encoding)), rules(max), undefined);
          if (typeof cut === "object") {
            expect(cut.tokens).toBe(countTokens(JSON.stringify(cut.kept), encoding));
            expect(cut.tokens).toBeLessThanOrEqual(budget);
          }
        }),
        { numRuns: 200 },
      );
    });
  }

  it("keeps the first items whole with a marker, and a list that fits whole", () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ id: `C-${i}`, name: `Customer ${i}` }));
    const counter = new TokenCounter(tokenizerFor("o200k_base"));
    const cut = fitList(items, 200, counter, rules(5), undefined);
    expect(cut).toMatchObject({ whole: false, kept: [...items.slice(0, 5), { truncated: true, omitted_items: 25 }] });
    expect(fitList(items, 100_000, counter, rules(5), undefined)).toMatchObject({ whole: true, kept: items });
    expect(fitList(items, 20, counter, rules(5), undefined)).toBe("over");
  });

  it("redacts only the items it may keep, in one scan", () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ id: `C-${i}` }));
    const seen: number[] = [];
    const scrub = (value: unknown) => (seen.push((value as unknown[]).length), value);
    fitList(items, 200, new TokenCounter(tokenizerFor("o200k_base")), rules(5), scrub);
    expect(seen).toEqual([5]);
  });

  it("leaves a list whose items are not plain JSON, or throw when read, to the search", () => {
    const hostile = Object.defineProperty({}, "ok", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    });
    const counter = new TokenCounter(tokenizerFor("o200k_base"));
    expect(fitList([hostile, { id: 1 }], 200, counter, rules(5), undefined)).toBeUndefined();
    expect(fitList([{ id: 1n }], 200, counter, rules(5), undefined)).toBeUndefined();
    expect(fitList([{ id: 1 }, new Map()], 200, counter, rules(5), undefined)).toBeUndefined();
  });
});
