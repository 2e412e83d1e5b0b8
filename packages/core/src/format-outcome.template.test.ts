import { describe, expect, it } from "vitest";
import { createToolOutcome, formatToolOutcome, type ToolOutcomeInit, toolOutcomeEnvelope } from "./index.js";
import { markUntrusted } from "./tool-provenance.js";

// formatToolOutcome writes the envelope from a template (only `data` stringified); the model must
// read the same bytes as the generic formatter's, JSON.stringify of the envelope object.
const generic = (init: ToolOutcomeInit, omitMetadata = false): string =>
  JSON.stringify(toolOutcomeEnvelope(createToolOutcome(init), { omitMetadata }));

const metadata = {
  tool: "getOrder",
  callId: "call_x1",
  attempts: 1,
  latencyMs: 0.123456,
  idempotencyKey: "run_1:call_x1",
};

const data: Record<string, unknown> = {
  "an object": { sum: 5 },
  "an array": [1, "two", { three: 3 }, [4], null, true],
  "quotes, escapes and unicode": {
    text: 'say "hi"\\n\n\t\u0000\u001f \u2028 \u00e9 漢字 😀 \ud800 lone',
    'key "quoted"': 1,
  },
  "undefined fields": { kept: 1, dropped: undefined, fn: () => 1, nested: { also: undefined } },
  nested: { a: { b: { c: { d: [{ e: [{ f: "deep" }] }] } } } },
  "big and odd numbers": { big: 2 ** 60, tiny: 1e-300, neg: -0, inf: Infinity, nan: Number.NaN, huge: 1e21, n: 10n },
  "a string": "shipped",
  "a number": 42.5,
  "a boolean": false,
  null: null,
  "an empty object and array": { o: {}, a: [] },
  "a date, a map and a set": { at: new Date(0), map: new Map([["k", 1]]), set: new Set([1, 2]) },
  "integer-like keys": { 2: "two", 1: "one", b: "b", a: "a" },
  "a __proto__ key": JSON.parse('{"__proto__":{"polluted":true},"x":1}') as unknown,
  "a cycle": (() => {
    const o: Record<string, unknown> = { name: "loop" };
    o.self = o;
    return o;
  })(),
};

describe("formatToolOutcome's envelope template", () => {
  for (const [label, value] of Object.entries(data)) {
    it(`writes the generic formatter's bytes for ${label}`, () => {
      for (const status of ["ok", "error", "partial"] as const) {
        const init: ToolOutcomeInit = { status, data: value, metadata };
        expect(formatToolOutcome(createToolOutcome(init))).toBe(generic(init));
        expect(formatToolOutcome(createToolOutcome(init), { omitMetadata: true })).toBe(generic(init, true));
      }
    });
  }

  it("writes every optional member in the generic order", () => {
    const init: ToolOutcomeInit = {
      status: "partial",
      errorCode: "PARTIAL_FAILURE",
      retriable: true,
      message: 'Item "2" failed',
      suggestion: "Retry the failed items.",
      failures: [
        { index: 1, code: "NOT_FOUND" },
        { index: 2, id: "A-1", code: "OUT_OF_STOCK", retriable: true },
      ],
      data: { succeeded: [1], failed: [2] },
      metadata: {
        ...metadata,
        flags: ["RESULT_TRUNCATED", "REDACTED"],
        truncation: { originalTokens: 900, keptTokens: 300 },
        attemptErrors: ["TIMEOUT"],
        retryAfterMs: 5000,
        rollback: { steps: [1, 2], at: new Date(0), n: 3n },
        note: undefined,
      },
    };
    expect(formatToolOutcome(createToolOutcome(init))).toBe(generic(init));
    const untrusted = createToolOutcome({ status: "ok", data: { page: "text" }, metadata });
    markUntrusted(untrusted);
    expect(formatToolOutcome(untrusted)).toBe(JSON.stringify(toolOutcomeEnvelope(untrusted)));
    expect(formatToolOutcome(untrusted)).toContain('"provenance":"untrusted"');
  });

  it("escapes texts and numbers in the metadata and messages as JSON.stringify does", () => {
    const texts = [
      'say "hi"',
      "back\\slash",
      "nul\u0000 us\u001f tab\t",
      "\u2028\u2029 é 漢字",
      "😀",
      "\ud800 lone",
      "",
    ];
    const numbers = [0, -0, 1e21, 1.5e-7, 0.1 + 0.2, -12.345678, Number.NaN, Number.POSITIVE_INFINITY];
    for (const text of texts)
      for (const n of numbers) {
        const init: ToolOutcomeInit = {
          status: "error",
          errorCode: "NOT_FOUND",
          message: text,
          suggestion: `${text}!`,
          data: text,
          metadata: { ...metadata, tool: text, callId: text, latencyMs: n, attempts: n, extra: text, flag: n > 0 },
        };
        expect(formatToolOutcome(createToolOutcome(init))).toBe(generic(init));
        // Exactly the invoker's keys, which the template writes by name.
        const invokerOnly: ToolOutcomeInit = {
          status: "ok",
          data: 1,
          metadata: { tool: text, callId: text, attempts: n, latencyMs: n, idempotencyKey: text },
        };
        expect(formatToolOutcome(createToolOutcome(invokerOnly))).toBe(generic(invokerOnly));
      }
  });

  it("keeps the generic order and merging for metadata keys that are not camelCase", () => {
    for (const extra of [{ 7: "seven" }, { latency_ms: 9, "with space": 1 }, { already_snake: true }]) {
      const init: ToolOutcomeInit = { status: "ok", data: 1, metadata: { ...metadata, ...extra } };
      expect(formatToolOutcome(createToolOutcome(init))).toBe(generic(init));
    }
  });

  it("renders data that is not a snapshot (set by hand) safely", () => {
    const outcome = createToolOutcome({ status: "ok", metadata });
    outcome.data = { n: 1n, tags: new Set(["a"]) };
    expect(JSON.parse(formatToolOutcome(outcome)).data).toEqual({ n: "1", tags: ["a"] });
  });
});
