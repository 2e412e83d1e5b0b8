import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { surelyFits } from "./surely-fits.js";
import { countTokens } from "./tokenizer.js";

describe("surelyFits", () => {
  it("never says a value fits when its JSON has more tokens than the budget", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 16, max: 400 }), (value, maxTokens) => {
        if (surelyFits(value, maxTokens)) expect(countTokens(JSON.stringify(value))).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 300 },
    );
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
    expect(surelyFits("x".repeat(200), 1000)).toBe(false); // 1202 bytes at worst
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
