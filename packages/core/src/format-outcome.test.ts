import { describe, expect, it } from "vitest";
import { createToolOutcome, formatToolOutcome, type ToolOutcome, toolOutcomeEnvelope } from "./index.js";

const metadata = {
  tool: "getOrderStatus",
  callId: "call_1",
  attempts: 2,
  latencyMs: 12.3456,
  idempotencyKey: "run_1:call_1",
};

describe("formatToolOutcome, envelope style (default)", () => {
  it("renders snake_case keys in a fixed order", () => {
    const outcome = createToolOutcome({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      retriable: false,
      message: "Order 'X' not found",
      suggestion: "Verify the ID.",
      data: { orderId: "X" },
      metadata: {
        ...metadata,
        flags: ["RESULT_TRUNCATED"],
        truncation: { originalTokens: 900, keptTokens: 300 },
        retryAfterMs: 5000,
      },
    });
    expect(formatToolOutcome(outcome)).toBe(
      '{"status":"error","error_code":"ORDER_NOT_FOUND","retriable":false,"message":"Order \'X\' not found","suggestion":"Verify the ID.","data":{"orderId":"X"},' +
        '"metadata":{"tool":"getOrderStatus","call_id":"call_1","attempts":2,"latency_ms":12.35,"idempotency_key":"run_1:call_1","flags":["RESULT_TRUNCATED"],' +
        '"truncation":{"original_tokens":900,"kept_tokens":300},"retry_after_ms":5000}}',
    );
  });

  it("leaves out absent fields, and metadata on request", () => {
    const outcome = createToolOutcome({ status: "ok", data: "shipped", metadata });
    expect(JSON.parse(formatToolOutcome(outcome, { omitMetadata: true }))).toEqual({
      status: "ok",
      retriable: false,
      data: "shipped",
    });
    expect(toolOutcomeEnvelope(createToolOutcome({ status: "ok" }), { omitMetadata: true })).toEqual({
      status: "ok",
      retriable: false,
    });
  });

  it("never renders the exception", () => {
    const outcome = createToolOutcome({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (TypeError). The call was not retried.",
      exception: new TypeError("password=hunter2"),
    });
    const text = formatToolOutcome(outcome);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("exception");
    expect(formatToolOutcome(outcome, { style: "needlr" })).not.toContain("hunter2");
  });
});

describe("formatToolOutcome, needlr style", () => {
  it("renders the payload on success", () => {
    expect(
      formatToolOutcome(createToolOutcome({ status: "ok", data: { status: "shipped" }, metadata }), {
        style: "needlr",
      }),
    ).toBe('{"status":"shipped"}');
    expect(formatToolOutcome(createToolOutcome({ status: "ok", data: "shipped" }), { style: "needlr" })).toBe(
      '"shipped"',
    );
    expect(formatToolOutcome(createToolOutcome({ status: "ok" }), { style: "needlr" })).toBe("null");
  });

  it("renders { error: { message, suggestion } } on failure", () => {
    const outcome = createToolOutcome({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      message: "Order 'X' not found",
      suggestion: "Verify the ID.",
      metadata,
    });
    expect(formatToolOutcome(outcome, { style: "needlr" })).toBe(
      '{"error":{"message":"Order \'X\' not found","suggestion":"Verify the ID."}}',
    );
    expect(formatToolOutcome(createToolOutcome({ status: "timeout" }), { style: "needlr" })).toBe(
      '{"error":{"message":"Tool call timeout."}}',
    );
  });

  it("renders a partial batch's items", () => {
    const data = { succeeded: [1], failed: [{ code: "GONE" }] };
    expect(JSON.parse(formatToolOutcome(createToolOutcome({ status: "partial", data }), { style: "needlr" }))).toEqual(
      data,
    );
  });
});

describe("formatToolOutcome produces valid JSON whatever data holds", () => {
  const render = (data: unknown, style?: "envelope" | "needlr"): unknown => {
    const outcome: ToolOutcome = createToolOutcome({ status: "ok", data, metadata });
    const text = formatToolOutcome(outcome, style === undefined ? {} : { style });
    expect(typeof text).toBe("string");
    return JSON.parse(text);
  };
  const dataOf = (data: unknown): unknown => (render(data) as { data?: unknown }).data;

  it("BigInt becomes a decimal string", () => {
    expect(dataOf({ total: 12345678901234567890n })).toEqual({ total: "12345678901234567890" });
    expect(render(7n, "needlr")).toBe("7");
  });

  it("cycles become [Circular], and shared (non-cyclic) references render twice", () => {
    const order: Record<string, unknown> = { id: "ORD-1" };
    order.self = order;
    const shared = { sku: "A" };
    expect(dataOf({ order, lines: [shared, shared] })).toEqual({
      order: { id: "ORD-1", self: "[Circular]" },
      lines: [{ sku: "A" }, { sku: "A" }],
    });
  });

  it("Map becomes an object (string or number keys) or an entry list (other keys); Set an array", () => {
    expect(
      dataOf(
        new Map<string | number, unknown>([
          ["a", 1],
          [2, new Set(["x", "y"])],
        ]),
      ),
    ).toEqual({ a: 1, 2: ["x", "y"] });
    expect(dataOf(new Map([[{ id: 1 }, "one"]]))).toEqual([[{ id: 1 }, "one"]]);
    expect(dataOf({ tags: new Set([1, 2, 2]) })).toEqual({ tags: [1, 2] });
  });

  it("Date becomes an ISO string; an invalid Date null", () => {
    expect(dataOf({ at: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)), bad: new Date(Number.NaN) })).toEqual({
      at: "2025-01-02T03:04:05.000Z",
      bad: null,
    });
  });

  it("undefined and functions are left out of objects and null in arrays; symbols become their description", () => {
    expect(dataOf({ a: undefined, b: () => 1, c: [undefined, () => 2], d: Symbol("tag") })).toEqual({
      c: [null, null],
      d: "Symbol(tag)",
    });
    expect(render(undefined)).toEqual({ status: "ok", retriable: false, metadata: expect.any(Object) });
    expect(render(() => 1, "needlr")).toBeNull();
  });

  it("NaN and Infinity become null", () => {
    expect(dataOf([Number.NaN, Infinity, -Infinity, 1.5])).toEqual([null, null, null, 1.5]);
  });

  it("Buffers and typed arrays become a size marker, never a byte dump", () => {
    expect(dataOf({ file: Buffer.from("hello") })).toEqual({ file: "[Uint8Array 5 bytes]" });
    expect(dataOf({ file: Buffer.from("hello"), n: 1n })).toEqual({ file: "[Uint8Array 5 bytes]", n: "1" });
    expect(dataOf({ raw: new Float64Array(4), buf: new ArrayBuffer(3) })).toEqual({
      raw: "[Float64Array 32 bytes]",
      buf: "[ArrayBuffer 3 bytes]",
    });
  });

  it("Errors inside data show their type only", () => {
    expect(dataOf({ cause: new RangeError("token=abc123") })).toEqual({ cause: { error: "RangeError" } });
  });

  it("class instances: own fields, or what toJSON returns; a throwing toJSON becomes [Unserializable]", () => {
    class Money {
      constructor(readonly cents: bigint) {}
    }
    class Secret {
      toJSON(): never {
        throw new Error("no");
      }
    }
    class Invoice {
      toJSON(): object {
        return { id: "INV-1" };
      }
    }
    expect(dataOf({ price: new Money(250n), secret: new Secret(), invoice: new Invoice() })).toEqual({
      price: { cents: "250" },
      secret: "[Unserializable]",
      invoice: { id: "INV-1" },
    });
  });

  it("a toJSON that keeps returning new objects with toJSON is bounded", () => {
    let made = 0;
    const endless = (): object => ({ n: ++made, toJSON: endless });
    expect(() => render({ value: endless(), n: 1n })).not.toThrow();
    expect(made).toBeLessThan(100);
  });

  it("a throwing getter becomes [Unreadable] and the rest still renders", () => {
    const record = { id: "c1" };
    Object.defineProperty(record, "email", {
      enumerable: true,
      get() {
        throw new Error("PII access denied");
      },
    });
    expect(dataOf(record)).toEqual({ id: "c1", email: "[Unreadable]" });
  });

  it("a proxy that throws on every trap becomes [Unserializable]", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("trap");
        },
        get() {
          throw new Error("trap");
        },
      },
    );
    expect(dataOf({ hostile, ok: true })).toEqual({ hostile: "[Unserializable]", ok: true });
  });

  it("very deep data is cut at [MaxDepth] when it needs the safe path", () => {
    let deep: Record<string, unknown> = { n: 1n };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    const text = JSON.stringify(dataOf(deep));
    expect(text).toContain("[MaxDepth]");
  });

  it("renders metadata values a plugin added that are not JSON-safe", () => {
    const outcome = createToolOutcome({ status: "ok", metadata: { ...metadata, startedAt: new Date(0), bytes: 10n } });
    expect(JSON.parse(formatToolOutcome(outcome)).metadata).toMatchObject({
      started_at: "1970-01-01T00:00:00.000Z",
      bytes: "10",
    });
  });
});

describe("toJsonSafe and __proto__ keys", () => {
  it("keeps a __proto__ key as data on the safe path", async () => {
    const { toJsonSafe } = await import("../src/index.js");
    const input = JSON.parse('{"__proto__": {"x": 1}, "n": 1}') as Record<string, unknown>;
    input.big = 1n;
    const safe = toJsonSafe(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(safe)).toBe(Object.prototype);
    expect(JSON.stringify(safe)).toBe('{"__proto__":{"x":1},"n":1,"big":"1"}');
  });
});
