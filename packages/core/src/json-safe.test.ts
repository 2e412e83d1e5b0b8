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
