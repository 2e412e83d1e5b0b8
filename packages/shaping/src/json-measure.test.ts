import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measureJson, scanJson } from "./json-measure.js";

describe("scanJson and measureJson", () => {
  it("measure the compact JSON length of integers, strings without escapes and nesting exactly", () => {
    const plain = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.string({ unit: fc.constantFrom(..."abc xyz-_") }),
        fc.array(tie("value"), { maxLength: 5 }),
        fc.dictionary(fc.string({ unit: fc.constantFrom(..."kqz") }), tie("value"), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(plain, (value) => {
        const length = JSON.stringify(value).length;
        expect(scanJson(value)).toEqual({ chars: length, plain: true });
        expect(measureJson(value as never, Number.MAX_SAFE_INTEGER)).toBe(length);
      }),
      { numRuns: 200 },
    );
  });

  it("stops walking soon after the cap", () => {
    let reads = 0;
    const item = Object.defineProperty({}, "value", { enumerable: true, get: () => (reads++, "x".repeat(10)) });
    const huge = Array.from({ length: 100_000 }, () => item);
    expect(measureJson({ list: huge } as never, 1000)).toBeGreaterThan(1000);
    expect(reads).toBe(0); // the list's commas alone are over the cap
    reads = 0;
    expect(measureJson([item, item, item, item, item, item, item, item, item, item] as never, 60)).toBeGreaterThan(60);
    expect(reads).toBeLessThan(5);
  });

  it("reports values JSON cannot carry as they are as not plain, without throwing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [
      10n,
      { d: new Date(0) },
      new Map(),
      [undefined],
      { f: () => 1 },
      cyclic,
      { n: Number.NaN },
      { toJSON: () => 1 },
    ]) {
      expect(scanJson(value).plain).toBe(false);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(scanJson(deep).plain).toBe(false);
  });
});
