import { AgentFunction, AgentFunctionGroup, formatToolOutcome, ToolResult } from "@needlework/core";
import fc from "fast-check";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../../src/index.js";
import { envelopeProblems } from "./reliability-fixtures.js";

// Properties of the full pipeline (resilience, tool-result, truncation, redaction) over arbitrary
// input: what a tool throws, what it returns, and what the model sends as arguments.

/** What the next call of a tool does; set by each property run. */
let behaviour: () => unknown = () => undefined;
let received: unknown[] = [];

const TypedInput = z.object({
  id: z.string().min(1).max(40),
  count: z.number().int().min(0).max(1_000),
  tags: z.array(z.string().max(20)).max(5).optional(),
  mode: z.enum(["fast", "safe"]).default("safe"),
  nested: z.object({ flag: z.boolean(), note: z.string().nullable() }).optional(),
});

@AgentFunctionGroup()
class PropertyTools {
  @AgentFunction({
    description: "Does whatever the property says (safe to repeat).",
    input: z.object({}),
    idempotent: true,
  })
  retried() {
    return behaviour();
  }

  @AgentFunction({ description: "Does whatever the property says (not idempotent).", input: z.object({}) })
  once() {
    return behaviour();
  }

  @AgentFunction({ description: "Takes typed arguments.", input: TypedInput })
  typed(args: unknown) {
    received.push(args);
    return { ok: true };
  }
}

const factory = usingAgentFramework(container.createChildContainer())
  .addAgentFunctions(PropertyTools)
  .usingResilience({
    retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
    attemptTimeoutMs: false,
    totalTimeoutMs: false,
    // Off, so that each property sees what its values produce: with a breaker, the thrown values of
    // one property opened it and the next property read only CIRCUIT_OPEN (it passed only after it).
    circuitBreaker: false,
  })
  .usingToolResultMiddleware()
  .usingTruncation()
  .usingRedaction()
  .buildAgentFactory();

/** Both renderings the model may read. */
async function modelTexts(tool: string, run: () => unknown): Promise<string[]> {
  behaviour = run;
  const outcome = await factory.tools.invoke({ name: tool, arguments: {} });
  const envelope = factory.formatOutcome(outcome);
  expect(envelopeProblems(envelope, { tool })).toEqual([]);
  return [envelope, formatToolOutcome(outcome, { style: "needlr" })];
}

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Secrets the default redaction detects. */
const secret = fc.oneof(
  chars(ALNUM, 24, 40).map((k) => `sk-${k}`),
  chars(ALNUM, 36, 36).map((k) => `ghp_${k}`),
  chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16).map((k) => `AKIA${k}`),
  fc.tuple(chars("abcdefghij", 3, 10), chars("klmnopq", 3, 8)).map(([user, domain]) => `${user}@${domain}.example.com`),
  fc
    .tuple(chars(`${ALNUM}_-`, 12, 30), chars(`${ALNUM}_-`, 12, 40), chars(`${ALNUM}_-`, 20, 43))
    .map(([h, p, s]) => `eyJ${h}.eyJ${p}.${s}`),
);

/** A marker no envelope text contains unless an exception's text leaked into it. */
const MARKER = "Qx9LeakMarker";
const leakText = fc
  .tuple(fc.string({ maxLength: 40 }), secret, fc.string({ maxLength: 40 }))
  .map(([a, s, b]) => ({ text: `${MARKER}${a} ${s} ${b}`, secret: s }));

const ERROR_CLASSES = [Error, TypeError, RangeError, SyntaxError, EvalError, URIError] as const;

/** A thrown value carrying the marker in its message, stack and causes, and a secret wherever an error holds text. */
const thrownError = fc
  .record({
    leak: leakText,
    cls: fc.constantFrom(...ERROR_CLASSES),
    name: fc.option(fc.oneof(fc.string({ maxLength: 30 }), secret), { nil: undefined }),
    status: fc.option(fc.oneof(fc.integer({ min: 100, max: 599 }), fc.string()), { nil: undefined }),
    code: fc.option(fc.oneof(fc.constantFrom("ECONNRESET", "ETIMEDOUT", "EACCES"), fc.string()), { nil: undefined }),
    cause: fc.boolean(),
    extra: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    shape: fc.constantFrom("error", "subclass", "plain", "string", "aggregate", "dom"),
  })
  .map(({ leak, cls, name, status, code, cause, extra, shape }) => {
    const { text } = leak;
    let value: unknown;
    switch (shape) {
      case "string":
        value = text;
        break;
      case "plain":
        value = { message: text, stack: `at ${text}`, toString: () => text, toJSON: () => ({ text }) };
        break;
      case "aggregate":
        value = new AggregateError([new Error(text)], text);
        break;
      case "dom":
        value = new DOMException(text, "DataCloneError");
        break;
      case "subclass":
        value = new (class VendorClientError extends cls {})(text);
        break;
      default:
        value = new cls(text);
    }
    if (typeof value === "object" && value !== null && !(value instanceof DOMException)) {
      const target = value as Record<string, unknown>;
      Object.assign(target, extra);
      target.stack = `${String(name ?? "Error")}: ${text}\n    at Client.send (/srv/${MARKER}/client.js:1:1)`;
      if (name !== undefined) target.name = name;
      if (status !== undefined) target.status = status;
      if (code !== undefined) target.code = code;
      if (cause) target.cause = new Error(text, { cause: { message: text, headers: { "retry-after": text } } });
      target.response = { data: { error: text }, headers: { "x-debug": text } };
    }
    return { value, secret: leak.secret, name };
  });

/** Objects that fight back: throwing getters and proxies. */
const hostile = leakText.map(({ text, secret: s }) => {
  const getters = Object.create(Error.prototype, {
    message: { get: () => text },
    name: {
      get: () => {
        throw new Error(text);
      },
    },
    stack: { get: () => text },
    status: {
      get: () => {
        throw new Error(text);
      },
    },
    constructor: {
      get: () => {
        throw new Error(text);
      },
    },
  }) as unknown;
  const proxy = new Proxy(new Error(text), {
    get: (_, key) => {
      if (key === "then") return undefined;
      throw new Error(`${text} ${String(key)}`);
    },
    getPrototypeOf: () => {
      throw new Error(text);
    },
  });
  return [
    { value: getters, secret: s, name: undefined },
    { value: proxy, secret: s, name: undefined },
  ];
});

const thrownValue = fc.oneof(
  { weight: 6, arbitrary: thrownError },
  { weight: 2, arbitrary: hostile.chain((pair) => fc.constantFrom(...pair)) },
  {
    weight: 2,
    arbitrary: fc
      .anything({
        withBigInt: true,
        withMap: true,
        withSet: true,
        withDate: true,
        withTypedArray: true,
        withNullPrototype: true,
      })
      .map((value) => ({ value, secret: undefined, name: undefined })),
  },
);

/** A value with a planted secret somewhere a tool might put it. */
const plantedValue = fc
  .tuple(
    secret,
    fc.string({ maxLength: 30 }),
    fc.anything({
      maxDepth: 2,
      withBigInt: true,
      withMap: true,
      withSet: true,
      withDate: true,
      withNullPrototype: true,
    }),
    fc.integer({ min: 0, max: 11 }),
  )
  .map(([s, around, noise, where]) => {
    const text = `${around} ${s} ${around}`;
    const values: (() => unknown)[] = [
      () => text,
      () => ({ noise, note: text }),
      () => ({ noise, [text]: 1 }),
      () => [noise, [text], { deeper: { deepest: text } }],
      () =>
        new Map<unknown, unknown>([
          ["k", text],
          [text, noise],
        ]),
      () => ({ tags: new Set([text, "x"]) }),
      () => ({ toJSON: () => ({ rendered: text }) }),
      () => ({ password: `${around}${s}`, apiKey: s, nested: [{ client_secret: s }] }),
      () => ToolResult.ok({ noise, note: text }),
      () =>
        ToolResult.fail(`Lookup failed for ${text}`, {
          code: "LOOKUP_FAILED",
          suggestion: `Retry without ${text}`,
          data: { text },
        }),
      () => ToolResult.partial({ succeeded: [{ id: text }], failed: [{ code: "BAD", message: text }] }),
      () => {
        // A big result: truncation cuts it, then redaction must still find the secret in what is kept.
        const filler = `${around} `.repeat(3_000);
        return { rows: Array.from({ length: 50 }, (_, i) => ({ i, note: i % 7 === 0 ? text : filler.slice(0, 200) })) };
      },
    ];
    return { make: values[where]!, secret: s };
  });

describe("properties", () => {
  it("any thrown value becomes a JSON envelope holding nothing of the exception's text or stack, and no planted secret", async () => {
    await fc.assert(
      fc.asyncProperty(thrownValue, fc.boolean(), async ({ value, secret: s }, idempotent) => {
        const texts = await modelTexts(idempotent ? "retried" : "once", () => {
          throw value;
        });
        for (const text of texts) {
          expect(() => JSON.parse(text)).not.toThrow();
          expect(text).not.toContain(MARKER);
          expect(text).not.toMatch(/\n\s+at |client\.js/);
          if (s !== undefined) expect(text).not.toContain(s);
          const envelope = JSON.parse(texts[0]!) as { status: string };
          expect(["error", "timeout"]).toContain(envelope.status);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("any returned value becomes a JSON envelope, and a planted secret is redacted wherever it sits", async () => {
    await fc.assert(
      fc.asyncProperty(plantedValue, fc.boolean(), async ({ make, secret: s }, idempotent) => {
        for (const text of await modelTexts(idempotent ? "retried" : "once", make)) {
          expect(() => JSON.parse(text)).not.toThrow();
          expect(text).not.toContain(s);
        }
      }),
      { numRuns: 400 },
    );
  });

  describe("a secret that straddles the truncation cut", () => {
    const small = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(PropertyTools)
      .usingToolResultMiddleware()
      .usingTruncation({ maxTokens: 200 })
      .usingRedaction()
      .buildAgentFactory();
    const cutAround = async (planted: string, pad: number) => {
      behaviour = () => ({ text: `${"word ".repeat(Math.floor(pad / 5))}${planted}${" tail".repeat(300)}` });
      return small.formatOutcome(await small.tools.invoke({ name: "once", arguments: {} }));
    };
    /** Keys whose detectors still see a cut key: not even their first 12 characters survive. */
    const keyLike = fc.oneof(
      chars(ALNUM, 24, 40).map((k) => `sk-${k}`),
      chars(ALNUM, 36, 36).map((k) => `ghp_${k}`),
      chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16).map((k) => `AKIA${k}`),
      fc
        .tuple(chars("abcdefghij", 3, 10), chars("klmnopq", 3, 8))
        .map(([user, domain]) => `${user}@${domain}.example.com`),
    );

    it("is never left whole, and a key, token or e-mail address not even in part", async () => {
      await fc.assert(
        fc.asyncProperty(secret, keyLike, fc.integer({ min: 0, max: 1_500 }), async (s, key, pad) => {
          expect(await cutAround(s, pad)).not.toContain(s);
          expect(await cutAround(key, pad)).not.toContain(key.slice(0, 12));
        }),
        { numRuns: 200 },
      );
    });

    // Truncation cuts on token boundaries and could once keep the header and payload of a JWT, or the
    // first 12 digits of a card number, in a form no detector matches; it now redacts what it cuts first.
    it("never leaves the first part of a JWT or a card number visible", async () => {
      const jwt = `eyJ${"a".repeat(19)}.eyJ${"b".repeat(24)}.${"c".repeat(26)}`;
      const card = "4111 1111 1111 1111";
      let partial = 0;
      for (let pad = 700; pad < 950; pad += 2) {
        if ((await cutAround(jwt, pad)).includes(jwt.slice(0, 30))) partial++;
        if ((await cutAround(card, pad)).includes(card.slice(0, 14))) partial++;
      }
      expect(partial).toBe(0);
    });
  });

  it("any value at all that a tool returns becomes valid JSON for the model", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withBoxedValues: true,
          withObjectString: true,
        }),
        async (value) => {
          for (const text of await modelTexts("once", () => value)) expect(() => JSON.parse(text)).not.toThrow();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("any argument payload either reaches the tool schema-valid or is answered INVALID_ARGUMENTS", async () => {
    const field = <T>(valid: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) });
    const nearlyValid = fc.record(
      {
        id: field(fc.string({ minLength: 1, maxLength: 40 })),
        count: field(fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.double(), fc.integer())),
        tags: field(fc.array(fc.string({ maxLength: 25 }), { maxLength: 6 })),
        mode: field(fc.constantFrom("fast", "safe", "slow")),
        nested: field(
          fc.record(
            { flag: field(fc.boolean()), note: field(fc.option(fc.string(), { nil: null })) },
            { requiredKeys: [] },
          ),
        ),
        extra: fc.anything({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    );
    const asJson = nearlyValid.chain((value) => {
      try {
        const text = JSON.stringify(value);
        return fc.constant<unknown>(text === undefined ? value : text);
      } catch {
        return fc.constant<unknown>(value);
      }
    });
    const payload = fc.oneof(
      { weight: 4, arbitrary: nearlyValid },
      { weight: 3, arbitrary: asJson },
      {
        weight: 1,
        arbitrary: fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
      },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.json(),
          fc.string(),
          fc.constantFrom(
            '{"id":"a","count":1,"__proto__":{"admin":true}}',
            '{"id":"a","count":1,"constructor":{"prototype":{}}}',
            "{",
            "[]",
            "null",
            '"x"',
            "1e999",
          ),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(payload, async (args) => {
        received = [];
        const outcome = await factory.tools.invoke({ name: "typed", arguments: args });
        if (received.length === 1) {
          expect(TypedInput.safeParse(received[0]).success).toBe(true);
          expect(outcome.status).toBe("ok");
        } else {
          expect(received).toEqual([]);
          expect(outcome).toMatchObject({ status: "error", errorCode: "INVALID_ARGUMENTS", retriable: false });
          expect(envelopeProblems(factory.formatOutcome(outcome), { tool: "typed" })).toEqual([]);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("argument objects that fight back (throwing getters, proxies, cycles) are answered INVALID_ARGUMENTS, never thrown", async () => {
    const cycle: Record<string, unknown> = { id: "a", count: 1 };
    cycle.nested = cycle;
    const payloads: unknown[] = [
      Object.defineProperty({ id: "a", count: 1 }, "tags", {
        enumerable: true,
        get() {
          throw new Error("getter");
        },
      }),
      new Proxy(
        { id: "a", count: 1 },
        {
          ownKeys() {
            throw new Error("ownKeys");
          },
        },
      ),
      new Proxy(
        {},
        {
          get() {
            throw new Error("get");
          },
        },
      ),
      cycle,
    ];
    for (const args of payloads) {
      received = [];
      const outcome = await factory.tools.invoke({ name: "typed", arguments: args });
      expect(received).toEqual([]);
      expect(outcome).toMatchObject({ status: "error", errorCode: "INVALID_ARGUMENTS" });
    }
  });
});
