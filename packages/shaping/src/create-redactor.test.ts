import { safeJsonStringify } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../test/invalid-option.js";
import { createRedactor } from "./create-redactor.js";
import { DEFAULT_REDACTION_OPTIONS, type RedactionOptions } from "./redaction.options.js";
import { DETECTOR_NAMES } from "./redaction-detectors.js";
import { keyWords, secretFieldTest } from "./secret-fields.js";

const { redactText, redactValue } = createRedactor();

describe("createRedactor", () => {
  it("pins the defaults: every detector, field-name rules on, nothing allowed", () => {
    expect(DEFAULT_REDACTION_OPTIONS).toEqual({
      detectors: DETECTOR_NAMES,
      patterns: [],
      fieldNames: [],
      redactFieldNames: true,
      allow: [],
    });
  });

  it("returns clean text and clean values as they are", () => {
    const value = { id: "ORD-1", lines: [{ sku: "A-1", qty: 2 }], total: 39.98, note: "Leave at the door." };
    expect(redactValue(value)).toBe(value);
    expect(redactText("nothing to see here")).toBe("nothing to see here");
  });

  it("scrubs strings deep inside values and shares the untouched parts", () => {
    const untouched = { sku: "A-1" };
    const value = { customer: { name: "Jane", contact: ["jane@corp.example", "+1 415 555 2671"] }, lines: [untouched] };
    const out = redactValue(value) as typeof value;
    expect(out).toEqual({
      customer: { name: "Jane", contact: ["[REDACTED:email]", "[REDACTED:phone]"] },
      lines: [untouched],
    });
    expect(out.lines).toBe(value.lines);
    expect(value.customer.contact[0]).toBe("jane@corp.example");
  });

  it("replaces the whole value of secret-named fields, whatever its type", () => {
    const out = redactValue({
      password: "hunter2",
      db_password: "x",
      apiKey: 12345,
      access_token: { value: "t" },
      Authorization: "Bearer abc",
      clientSecret: ["a"],
      ssn: "123456789",
      max_tokens: 2000,
      tokenizer: "o200k",
      secretary: "Ann",
      hasPassword: true,
      password_hint: null,
    });
    expect(out).toEqual({
      password: "[REDACTED:secret]",
      db_password: "[REDACTED:secret]",
      apiKey: "[REDACTED:secret]",
      access_token: "[REDACTED:secret]",
      Authorization: "[REDACTED:secret]",
      clientSecret: "[REDACTED:secret]",
      ssn: "[REDACTED:secret]",
      max_tokens: 2000,
      tokenizer: "o200k",
      secretary: "Ann",
      hasPassword: true,
      password_hint: null,
    });
  });

  it("splits keys into words in any casing", () => {
    expect(keyWords("APIKey")).toEqual(["api", "key"]);
    expect(keyWords("db_password")).toEqual(["db", "password"]);
    expect(keyWords("refreshToken")).toEqual(["refresh", "token"]);
    const isSecret = secretFieldTest();
    expect(["X-API-Key", "SET_COOKIE", "csrf-token", "privateKey", "aws_secret_access_key"].every(isSecret)).toBe(true);
    expect(["tokens", "token_count", "keyboard", "monkey", "author"].some(isSecret)).toBe(false);
  });

  it("adds fieldNames (words or patterns) to the rules, and can turn the rules off", () => {
    const custom = createRedactor({ fieldNames: ["date of birth", /^internal_/] });
    expect(custom.redactValue({ dateOfBirth: "1990-01-01", internal_notes: "x", name: "Jane" })).toEqual({
      dateOfBirth: "[REDACTED:secret]",
      internal_notes: "[REDACTED:secret]",
      name: "Jane",
    });
    expect(createRedactor({ redactFieldNames: false }).redactValue({ password: "hunter2" })).toEqual({
      password: "hunter2",
    });
  });

  it("scrubs object keys too, keeping colliding keys apart", () => {
    const out = redactValue({ "jane@corp.example": { orders: 3 }, "bob@corp.example": { orders: 1 } });
    expect(out).toEqual({ "[REDACTED:email]": { orders: 3 }, "[REDACTED:email]#2": { orders: 1 } });
  });

  it("keeps a __proto__ key a key when it rebuilds an object", () => {
    const value = JSON.parse('{"__proto__": {"email": "jane@corp.example"}, "id": 1}') as object;
    expect(JSON.stringify(redactValue(value))).toBe('{"__proto__":{"email":"[REDACTED:email]"},"id":1}');
  });

  it("scrubs card numbers stored as numbers or BigInt", () => {
    expect(redactValue({ card: 4111111111111111, other: 4111111111111112, big: 4111111111111111n })).toEqual({
      card: "[REDACTED:card]",
      other: 4111111111111112,
      big: "[REDACTED:card]",
    });
  });

  it("handles Map, Set, Date, class instances, cycles and throwing getters without throwing", () => {
    class Customer {
      constructor(readonly email: string) {}
    }
    const cyclic: Record<string, unknown> = { contact: "jane@corp.example", when: new Date(0), n: 10n };
    cyclic.self = cyclic;
    Object.defineProperty(cyclic, "boom", {
      enumerable: true,
      get() {
        throw new Error("nope");
      },
    });
    const value = {
      map: new Map([["k", "jane@corp.example"]]),
      set: new Set(["123-45-6789"]),
      customer: new Customer("bob@corp.example"),
      cyclic,
    };
    const text = safeJsonStringify(redactValue(value));
    expect(text).not.toMatch(/corp\.example|123-45-6789/);
    expect(JSON.parse(text)).toMatchObject({
      map: { k: "[REDACTED:email]" },
      set: ["[REDACTED:ssn]"],
      customer: { email: "[REDACTED:email]" },
      cyclic: { self: "[Circular]", boom: "[Unreadable]", n: "10" },
    });
  });

  it("keeps a Map or Date with nothing to scrub as the same object", () => {
    const value = { when: new Date(0), map: new Map([["k", 1]]) };
    expect(redactValue(value)).toBe(value);
  });

  it("never leaks through a cycle back to an unscrubbed ancestor", () => {
    const root: Record<string, unknown> = { email: "jane@corp.example" };
    root.child = { parent: root };
    expect(safeJsonStringify(redactValue(root))).not.toContain("jane@corp.example");
  });

  it("runs custom patterns first, with their own marker or replacement", () => {
    const redactor = createRedactor({
      patterns: [
        { name: "employee_id", pattern: /\bEMP-[0-9]{6}\b/ },
        { name: "ticket", pattern: /\bTCK-[0-9]{4}\b/g, replacement: (m) => `TCK-****${m.slice(-0, 0)}` },
        { name: "case", pattern: /CASE-[0-9]{3}/g, replacement: "<case>" },
      ],
    });
    expect(redactor.redactText("EMP-123456 filed TCK-9876 for CASE-001")).toBe(
      "[REDACTED:employee_id] filed TCK-**** for <case>",
    );
  });

  it("keeps allow-listed values, by exact string or pattern", () => {
    const redactor = createRedactor({ allow: ["support@example.com", /@example\.org$/], fieldNames: [] });
    expect(redactor.redactText("mail support@example.com, info@example.org or jane@corp.example")).toBe(
      "mail support@example.com, info@example.org or [REDACTED:email]",
    );
    expect(redactor.redactValue({ password: "support@example.com" })).toEqual({ password: "support@example.com" });
  });

  it("runs only the chosen detectors", () => {
    const redactor = createRedactor({ detectors: ["email"] });
    expect(redactor.redactText("jane@corp.example 123-45-6789")).toBe("[REDACTED:email] 123-45-6789");
  });

  it("rejects bad options with a message naming the option", () => {
    const refused = (options: unknown) => invalidOption(() => createRedactor(options as RedactionOptions));
    const detector = refused({ detectors: ["emails"] });
    expect(detector).toMatchObject({ code: "INVALID_OPTION", option: "detectors.0", value: "emails" });
    expect(detector.message).toMatch(
      /^usingRedaction: option 'detectors\.0' must be one of private_key, .*\(got "emails"\)\.$/,
    );
    expect(refused({ patterns: [{ name: "", pattern: /x/ }] })).toMatchObject({ option: "patterns.0.name", value: "" });
    expect(refused({ patterns: [{ name: "", pattern: /x/ }] }).message).toMatch(/must be a non-empty string/);
    expect(refused({ patterns: [{ name: "id", pattern: "EMP-" }] }).message).toMatch(
      /option 'patterns\.0\.pattern' must be a RegExp/,
    );
    const replacement = refused({ patterns: [{ name: "id", pattern: /x/, replacement: 1 }] });
    expect(replacement).toMatchObject({ option: "patterns.0.replacement", value: 1 });
    expect(replacement.message).toMatch(/'patterns\.0\.replacement' must be a string or a function \(got 1\)/);
    expect(refused({ patterns: [{ name: "id", pattern: /x/, replacment: "-" }] }).message).toMatch(
      /unknown option 'patterns\.0\.replacment'\. Known options: name, pattern, replacement\./,
    );
    expect(refused({ allow: [1] })).toMatchObject({ option: "allow.0", value: 1 });
    expect(refused({ allow: "me@example.com" }).message).toMatch(/option 'allow' must be an array of strings and/);
    expect(refused({ fieldNames: [null] })).toMatchObject({ option: "fieldNames.0", value: null });
    expect(refused({ redactFieldNames: "yes" })).toMatchObject({ option: "redactFieldNames", value: "yes" });
    expect(refused({ fieldName: ["x"] }).message).toMatch(
      /^usingRedaction: unknown option 'fieldName'\. Known options: /,
    );
  });
});
