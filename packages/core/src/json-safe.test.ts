import { describe, expect, it } from "vitest";
import { toJsonSafe } from "./json-safe.js";
import { createToolOutcome } from "./tool-outcome.js";
import { formatToolOutcome } from "./format-outcome.js";
import { errorTypeName } from "./tool-result.js";

describe("toJsonSafe at the edges", () => {
  it("renders boxed primitives as their primitive values", () => {
    const value = {
      note: new String("password=hunter2"),
      card: new Number(4111111111111111),
      yes: new Boolean(false),
      big: Object(10n) as object,
    };
    expect(toJsonSafe(value)).toEqual({ note: "password=hunter2", card: 4111111111111111, yes: false, big: "10" });
  });

  it("costs time for what is kept, not for a huge sparse array's length", () => {
    const rows = new Array(2 ** 32 - 1);
    rows[1] = "x";
    const safe = toJsonSafe({ rows }, { maxArrayItems: 3 }) as { rows: unknown[] };
    expect(safe.rows).toEqual([null, "x", null, `[… ${2 ** 32 - 4} more items]`]);
    // The default cap, through the formatter the model's text comes from.
    const text = formatToolOutcome(createToolOutcome({ status: "ok", data: { rows: new Array(2 ** 32 - 1) } }));
    expect(text).toContain(`[… ${2 ** 32 - 1 - 100_000} more items]`);
  });

  it("reads each getter and toJSON once", () => {
    let reads = 0;
    let serializations = 0;
    const value = {
      get auth() {
        reads++;
        return "x";
      },
      nested: { toJSON: () => ++serializations },
    };
    expect(toJsonSafe(value)).toEqual({ auth: "x", nested: 1 });
    expect([reads, serializations]).toEqual([1, 1]);
  });

  it("copies an object literal's own keys only, even with a key added to Object.prototype", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.injected = "from the prototype";
    try {
      expect(toJsonSafe({ a: 1, nested: { b: [2, { c: 3 }] } })).toEqual({ a: 1, nested: { b: [2, { c: 3 }] } });
      expect(Object.keys(toJsonSafe({ a: 1 }) as object)).toEqual(["a"]);
    } finally {
      delete proto.injected;
    }
  });

  it("keeps the markers of the general walk inside object literals and arrays", () => {
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    // A boxed string given a plain prototype is still its string (one string the redaction detectors
    // read whole, not one character per key); binary data is still described, never copied index by index.
    const boxed = Object.setPrototypeOf(new String("sk-live-secret"), Object.prototype) as object;
    expect(toJsonSafe({ boxed })).toEqual({ boxed: "sk-live-secret" });
    const forged = Object.setPrototypeOf(new Uint8Array(1_000), Object.prototype) as object;
    expect(toJsonSafe({ forged })).toEqual({ forged: expect.stringMatching(/^\[Object .* bytes\]$/) });
    const bytes = new Uint8Array(4);
    expect(
      toJsonSafe({ items: [loop], bytes, when: new Date(0), gone: undefined, fn: () => 1, n: Number.NaN }),
    ).toEqual({
      items: [{ name: "loop", self: "[Circular]" }],
      bytes: "[Uint8Array 4 bytes]",
      when: "1970-01-01T00:00:00.000Z",
      n: null,
    });
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 5; i++) deep = deep.next = {};
    expect(JSON.stringify(toJsonSafe(root, { maxDepth: 3 }))).toBe('{"next":{"next":{"next":"[MaxDepth]"}}}');
  });

  it("names an error only by a class name that does not look like a secret", () => {
    expect(toJsonSafe(Object.assign(new Error("x"), { name: "AKIAIOSFODNN7EXAMPLE" }))).toEqual({ error: "Error" });
    expect(errorTypeName({ name: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" })).toBe("Error");
    expect(errorTypeName(new TypeError("x"))).toBe("TypeError");
    class OrderNotFound extends Error {}
    expect(errorTypeName(new OrderNotFound("x"))).toBe("OrderNotFound");
  });
});

describe("ToolOutcome.data is a snapshot taken at settle", () => {
  it("later mutation, getters and a changing toJSON cannot change what is formatted", () => {
    const returned: Record<string, unknown> = { ok: true };
    let n = 0;
    const data = {
      returned,
      get flip() {
        return n++ === 0 ? "safe" : "password=hunter2";
      },
      t: { toJSON: () => (n > 1 ? "leak" : "fine") },
    };
    const outcome = createToolOutcome({ status: "ok", data });
    returned.auth = "Bearer abcdefghijklmnopqrstuvwxyz";
    const text = formatToolOutcome(outcome);
    expect(text).not.toContain("Bearer");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("leak");
    expect(outcome.data).toEqual({ returned: { ok: true }, flip: "safe", t: "fine" });
  });
});
