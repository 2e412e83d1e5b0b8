import { beforeEach, describe, expect, it, vi } from "vitest";

// Records how much text reaches the tokenizer: truncation must not tokenize what it throws away.
const tokenized: number[] = [];
vi.mock("./tokenizer.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./tokenizer.js")>();
  return {
    ...actual,
    tokenizerFor: (encoding: Parameters<typeof actual.tokenizerFor>[0]) => {
      const real = actual.tokenizerFor(encoding);
      return {
        encode: (text: string) => (tokenized.push(text.length), real.encode(text)),
        decode: real.decode,
        count: (text: string) => (tokenized.push(text.length), real.count(text)),
      };
    },
  };
});

const { truncateValue } = await import("./truncate-value.js");

const total = () => tokenized.reduce((a, b) => a + b, 0);

describe("truncation cost", () => {
  beforeEach(() => {
    tokenized.length = 0;
  });

  it("tokenizes only about the kept size of a 2 MB structure", () => {
    const value = Array.from({ length: 10_000 }, (_, i) => ({ id: `ORD-${i}`, status: "open", note: "n".repeat(150) }));
    expect(JSON.stringify(value).length).toBeGreaterThan(1_800_000);
    const result = truncateValue(value, { maxTokens: 2000 });
    expect(result.truncated).toBe(true);
    expect(total()).toBeGreaterThan(0);
    expect(total()).toBeLessThan(100_000);
  });

  it("tokenizes only a prefix of a 5 MB text", () => {
    const result = truncateValue("All work and no play makes Jack a dull boy. ".repeat(120_000), { maxTokens: 2000 });
    expect(result.truncated).toBe(true);
    expect(total()).toBeGreaterThan(0);
    expect(total()).toBeLessThan(100_000);
  });
});
