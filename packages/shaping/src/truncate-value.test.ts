import { InvalidOptionError } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../test/invalid-option.js";
import { countTokens } from "./tokenizer.js";
import { truncateText, truncateValue } from "./truncate-value.js";
import { DEFAULT_TRUNCATION_OPTIONS, type TruncationOptions } from "./truncation.options.js";

const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `ORD-${i}`,
    customer_id: `C-${i}`,
    status: i % 2 ? "shipped" : "open",
    note: "Customer asked for the parcel to be left at the side door of the building. ".repeat(2),
    lines: [{ sku: `SKU-${i}`, qty: 2, price: 19.99 }],
  }));

const tokensOf = (value: unknown) => countTokens(JSON.stringify(value));

describe("truncateValue", () => {
  it("pins the defaults: 2000 tokens, o200k_base, 20 list items", () => {
    expect(DEFAULT_TRUNCATION_OPTIONS).toMatchObject({
      maxTokens: 2000,
      encoding: "o200k_base",
      maxListItems: 20,
      maxMessageTokens: 500,
    });
  });

  it("returns a value that fits as it is, with its exact token count", () => {
    const value = { id: "ORD-1", status: "shipped", lines: [1, 2, 3] };
    const result = truncateValue(value);
    expect(result.value).toBe(value);
    expect(result).toMatchObject({
      truncated: false,
      originalTokens: tokensOf(value),
      keptTokens: tokensOf(value),
      originalTokensEstimated: false,
    });
  });

  it("keeps a short list whole when it fits, even above maxListItems", () => {
    const value = Array.from({ length: 50 }, (_, i) => i);
    expect(truncateValue(value, { maxListItems: 5 }).value).toBe(value);
  });

  it("cuts a long list to maxListItems followed by { truncated: true, omitted_items }", () => {
    const value = rows(5000);
    const result = truncateValue(value);
    const kept = result.value as unknown[];
    expect(result.truncated).toBe(true);
    expect(kept).toHaveLength(21);
    expect(kept[20]).toEqual({ truncated: true, omitted_items: 4980 });
    expect(kept.slice(0, 20)).toEqual(value.slice(0, 20));
    expect(result.keptTokens).toBe(tokensOf(kept));
    expect(result.keptTokens).toBeLessThanOrEqual(2000);
  });

  it("keeps fewer items than maxListItems when they would not fit", () => {
    const result = truncateValue(rows(5000), { maxTokens: 300 });
    const kept = result.value as Array<Record<string, unknown>>;
    expect(kept.length).toBeLessThan(21);
    expect(kept.at(-1)).toEqual({ truncated: true, omitted_items: 5000 - (kept.length - 1) });
    expect(result.keptTokens).toBeLessThanOrEqual(300);
    expect(tokensOf(kept)).toBe(result.keptTokens);
  });

  it("keeps identifying keys, error_code, status and message while dropping others", () => {
    const record = {
      notes: "x ".repeat(4000),
      history: Array.from({ length: 200 }, (_, i) => ({ at: i, text: "event ".repeat(20) })),
      id: "ORD-1",
      customer_id: "C-7",
      orderId: "ORD-1",
      status: "on_hold",
      error_code: "PAYMENT_DECLINED",
      message: "The card was declined.",
    };
    const result = truncateValue(record, { maxTokens: 60 });
    expect(result.truncated).toBe(true);
    expect(result.value).toMatchObject({
      id: "ORD-1",
      customer_id: "C-7",
      orderId: "ORD-1",
      status: "on_hold",
      error_code: "PAYMENT_DECLINED",
      message: "The card was declined.",
    });
    expect(result.keptTokens).toBeLessThanOrEqual(60);
  });

  it("marks dropped object keys with _truncated: { omitted_keys }", () => {
    const wide = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field${i}`, `value number ${i}`]));
    const result = truncateValue(wide, { maxTokens: 100 });
    const kept = result.value as Record<string, unknown>;
    const keptFields = Object.keys(kept).filter((k) => k !== "_truncated");
    expect(kept._truncated).toEqual({ omitted_keys: 400 - keptFields.length });
    expect(keptFields[0]).toBe("field0");
  });

  it("cuts long strings inside a structure with a marker that counts the omitted characters", () => {
    const body = "lorem ipsum dolor sit amet ".repeat(2000);
    const result = truncateValue({ id: "DOC-1", body }, { maxTokens: 200 });
    const kept = result.value as { id: string; body: string };
    expect(kept.id).toBe("DOC-1");
    const match = /^(.*)…\[truncated: (\d+) chars omitted\]$/s.exec(kept.body);
    expect(match).not.toBeNull();
    expect(body.startsWith(match![1]!)).toBe(true);
    expect(match![1]!.length + Number(match![2])).toBe(body.length);
  });

  it("shares the budget: small siblings stay whole, the large one is cut", () => {
    const result = truncateValue(
      { title: "Quarterly report", owner: "jane", body: "word ".repeat(20000) },
      { maxTokens: 400 },
    );
    expect(result.value).toMatchObject({ title: "Quarterly report", owner: "jane" });
    expect(result.keptTokens).toBeGreaterThan(300);
  });

  it("estimates originalTokens of a large value instead of tokenizing all of it", () => {
    const value = rows(20000);
    const exact = tokensOf(value);
    const result = truncateValue(value);
    expect(result.originalTokensEstimated).toBe(true);
    expect(result.originalTokens).toBeGreaterThan(exact * 0.7);
    expect(result.originalTokens).toBeLessThan(exact * 1.3);
  });

  it("counts originalTokens exactly when a structure is only a little over budget", () => {
    const value = { rows: rows(40) };
    const result = truncateValue(value, { maxTokens: 1000 });
    expect(result.truncated).toBe(true);
    expect(result).toMatchObject({ originalTokens: tokensOf(value), originalTokensEstimated: false });
  });

  it("estimates originalTokens of a list it cuts from the items it counted, never tokenizing the rest", () => {
    const value = rows(40);
    const result = truncateValue(value, { maxTokens: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.originalTokensEstimated).toBe(true);
    expect(result.originalTokens).toBeGreaterThan(tokensOf(value) * 0.8);
    expect(result.originalTokens).toBeLessThan(tokensOf(value) * 1.2);
  });

  it("never crashes on BigInt, Map, Set, Date, cycles or throwing getters, and returns valid JSON", () => {
    const cyclic: Record<string, unknown> = {
      id: "N-1",
      big: 10n ** 30n,
      when: new Date(0),
      tags: new Set(["a"]),
      map: new Map([["k", "v".repeat(50000)]]),
    };
    cyclic.self = cyclic;
    Object.defineProperty(cyclic, "boom", {
      enumerable: true,
      get() {
        throw new Error("nope");
      },
    });
    const result = truncateValue(cyclic, { maxTokens: 100 });
    const text = JSON.stringify(result.value);
    expect(JSON.parse(text)).toMatchObject({
      id: "N-1",
      big: "1000000000000000000000000000000",
      when: "1970-01-01T00:00:00.000Z",
    });
    expect(result.keptTokens).toBeLessThanOrEqual(100);
  });

  it("returns a small non-plain value that fits as it is", () => {
    const value = { n: 1n, when: new Date(0) };
    expect(truncateValue(value).value).toBe(value);
  });

  it("cuts plain text on a token boundary with the omitted character count", () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(3000);
    const result = truncateValue(text, { maxTokens: 100 });
    const kept = result.value as string;
    const match = /^(.*)…\[truncated: (\d+) chars omitted\]$/s.exec(kept)!;
    expect(text.startsWith(match[1]!)).toBe(true);
    expect(match[1]!.length + Number(match[2])).toBe(text.length);
    expect(result.keptTokens).toBe(countTokens(JSON.stringify(kept)));
    expect(result.keptTokens).toBeLessThanOrEqual(100);
    expect(result.keptTokens).toBeGreaterThan(80);
  });

  it("never splits a character when cutting text", () => {
    const text = "日本語のテキスト😀と絵文字🎉".repeat(2000);
    const kept = truncateText(text, { maxTokens: 50 }).value;
    const body = kept.slice(0, kept.indexOf("…[truncated"));
    expect(text.startsWith(body)).toBe(true);
    expect(body).not.toContain("\uFFFD");
  });

  it("keeps a JSON string valid JSON by cutting its structure", () => {
    const text = JSON.stringify(rows(3000));
    const result = truncateValue(text, { maxTokens: 300 });
    expect(typeof result.value).toBe("string");
    const parsed = JSON.parse(result.value as string) as unknown[];
    expect(parsed.at(-1)).toMatchObject({ truncated: true });
    expect(countTokens(JSON.stringify(result.value))).toBeLessThanOrEqual(300);
  });

  it("ends a cut before a space, so the last word (or a secret a redactor must see whole) is not split", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `card 4111111111111111 order ORD-${i}`).join(" ");
    const kept = truncateText(text, { maxTokens: 77 }).value;
    const body = kept.slice(0, kept.indexOf("…[truncated"));
    expect(text[body.length]).toBe(" ");
    const inStructure = truncateValue({ log: text }, { maxTokens: 77 }).value as { log: string };
    const head = inStructure.log.slice(0, inStructure.log.indexOf("…[truncated"));
    expect(text[head.length]).toBe(" ");
  });

  it("survives JSON text nested far deeper than any result should be", () => {
    const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    const result = truncateValue(`${deep}${" ".repeat(40_000)}`, { maxTokens: 50 });
    expect(() => JSON.parse(result.value as string)).not.toThrow();
    expect(result.keptTokens).toBeLessThanOrEqual(50);
  });

  it("counts in the chosen encoding", () => {
    const text = "Grüße aus München: naïve café façade. ".repeat(5000);
    const o200k = truncateText(text, { maxTokens: 200 });
    const cl100k = truncateText(text, { maxTokens: 200, encoding: "cl100k_base" });
    expect(cl100k.keptTokens).toBe(countTokens(JSON.stringify(cl100k.value), "cl100k_base"));
    expect(cl100k.keptTokens).toBeLessThanOrEqual(200);
    expect(o200k.value).not.toBe(cl100k.value);
  });

  it("keeps a __proto__ key a key when it cuts an object", () => {
    const value = JSON.parse(`{"__proto__": {"id": "P-1"}, "body": "${"word ".repeat(5000)}"}`) as object;
    const kept = JSON.parse(JSON.stringify(truncateValue(value, { maxTokens: 100 }).value)) as Record<string, unknown>;
    expect(Object.keys(kept)).toContain("__proto__");
  });

  it("leaves undefined alone", () => {
    expect(truncateValue(undefined)).toMatchObject({
      value: undefined,
      truncated: false,
      originalTokens: 0,
      keptTokens: 0,
    });
  });

  it("rejects bad options with a message naming the option", () => {
    const refused = (options: unknown) => invalidOption(() => truncateValue(1, options as TruncationOptions));
    expect(refused({ maxTokens: 5 })).toMatchObject({ code: "INVALID_OPTION", option: "maxTokens", value: 5 });
    expect(refused({ maxTokens: 5 }).message).toBe(
      "usingTruncation: option 'maxTokens' must be an integer of at least 16 (got 5).",
    );
    expect(refused({ encoding: "p50k_base" })).toMatchObject({ option: "encoding", value: "p50k_base" });
    expect(refused({ encoding: "p50k_base" }).message).toMatch(
      /option 'encoding' must be one of o200k_base, cl100k_base \(got "p50k_base"\)/,
    );
    expect(refused({ maxListItems: -1 })).toMatchObject({ option: "maxListItems", value: -1 });
    expect(refused({ maxMessageTokens: 15 })).toMatchObject({ option: "maxMessageTokens", value: 15 });
    expect(refused({ preserveKeys: ["id", 1] })).toMatchObject({ option: "preserveKeys.1", value: 1 });
    expect(refused({ preserveKeys: "id" }).message).toMatch(/'preserveKeys' must be an array of strings and regular/);
    expect(refused({ maxToken: 5 }).message).toMatch(/^usingTruncation: unknown option 'maxToken'\. Known options: /);
    expect(() => truncateText("x", { maxTokens: 5 })).toThrow(InvalidOptionError);
  });

  it("keeps extra preserveKeys before others", () => {
    const value = { filler: "f ".repeat(5000), sku: "SKU-9", more: "m ".repeat(5000) };
    const result = truncateValue(value, { maxTokens: 40, preserveKeys: ["sku"] });
    expect(result.value).toMatchObject({ sku: "SKU-9" });
  });
});

describe("identifying keys", () => {
  it("keeps a Salesforce-style bare `Id` when most fields are dropped", () => {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) record[`Field${i}__c`] = `value ${i}`;
    record.Id = "003XYZ";
    const { value, truncated } = truncateValue(record, { maxTokens: 30 });
    expect(truncated).toBe(true);
    expect(value).toMatchObject({ Id: "003XYZ" });
  });
});
