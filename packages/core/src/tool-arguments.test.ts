import { container as rootContainer } from "tsyringe";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  DEFAULT_ARGUMENT_LIMITS,
  type ArgumentLimits,
  type ToolOutcome,
} from "./index.js";

/** What the tool bodies received; empty when validation stopped the call. */
const received: unknown[] = [];
beforeEach(() => {
  received.length = 0;
});

const Address = z.object({ street: z.string(), zip: z.string().regex(/^\d{5}$/) });

@AgentFunctionGroup()
class ShippingTools {
  @AgentFunction({
    description: "Ships an order.",
    input: z.object({
      orderId: z.string(),
      quantity: z.number().int().positive(),
      express: z.boolean().optional(),
      address: Address.optional(),
      lines: z.array(z.object({ sku: z.string(), qty: z.number() })).optional(),
    }),
  })
  shipOrder(args: unknown): string {
    received.push(args);
    return "shipped";
  }

  @AgentFunction({
    description: "Stores a note.",
    input: z.object({ note: z.string().optional(), tree: z.unknown().optional() }),
  })
  storeNote(args: unknown): string {
    received.push(args);
    return "stored";
  }

  @AgentFunction({
    description: "Tags an order with free-form labels.",
    input: z.object({ orderId: z.string(), labels: z.looseObject({ source: z.string() }).optional() }),
  })
  tagOrder(args: unknown): unknown {
    received.push(args);
    return args;
  }
}

const invoker = (limits?: ArgumentLimits) =>
  createToolInvoker(rootContainer.createChildContainer(), {
    functions: [ShippingTools],
    ...(limits ? { limits } : {}),
  });
const tools = invoker();

function expectInvalid(outcome: ToolOutcome, tool: string, problems: string): void {
  expect(outcome).toMatchObject({
    status: "error",
    errorCode: "INVALID_ARGUMENTS",
    retriable: false,
    message: `Invalid arguments for tool '${tool}': ${problems}.`,
    suggestion: "Call the tool again with arguments that match its schema.",
    metadata: { tool, attempts: 0 },
  });
  expect(received).toEqual([]);
}

describe("invoke: arguments", () => {
  it("accepts an object or the JSON string a model produced, and validates both", async () => {
    const args = { orderId: "ORD-1", quantity: 2, address: { street: "1 Main St", zip: "12345" } };
    expect(await tools.invoke({ name: "shipOrder", arguments: args })).toMatchObject({ status: "ok", data: "shipped" });
    expect(await tools.invoke({ name: "shipOrder", arguments: JSON.stringify(args) })).toMatchObject({
      status: "ok",
      data: "shipped",
    });
    expect(received).toEqual([args, args]);
  });

  it("treats missing, null and empty-string arguments as {}", async () => {
    for (const args of [undefined, null, ""])
      expect((await tools.invoke({ name: "storeNote", arguments: args })).status).toBe("ok");
    expect(received).toEqual([{}, {}, {}]);
  });

  it("answers malformed JSON with INVALID_ARGUMENTS", async () => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: '{"orderId": "ORD-1",' }),
      "shipOrder",
      "the arguments are not valid JSON; send a JSON object",
    );
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: "orderId=ORD-1" }),
      "shipOrder",
      "the arguments are not valid JSON; send a JSON object",
    );
  });

  it.each([
    ["[1, 2]", "an array"],
    ["42", "a number"],
    ["null", "null"],
    ['"ORD-1"', "a string"],
    ["true", "a boolean"],
  ])("answers JSON %s (not an object) with INVALID_ARGUMENTS", async (json, what) => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: json }),
      "shipOrder",
      `the arguments must be a JSON object, not ${what}`,
    );
  });

  it("answers a non-object argument value the same way", async () => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: [{ orderId: "x" }] }),
      "shipOrder",
      "the arguments must be a JSON object, not an array",
    );
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: 7 }),
      "shipOrder",
      "the arguments must be a JSON object, not a number",
    );
  });

  it("lists missing fields by path", async () => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: {} }),
      "shipOrder",
      "orderId: expected string, received undefined; quantity: expected number, received undefined",
    );
  });

  it("lists wrong-typed fields by path, nested ones included", async () => {
    const outcome = await tools.invoke({
      name: "shipOrder",
      arguments:
        '{"orderId":7,"quantity":1.5,"address":{"street":"1 Main St","zip":"ABCDE"},"lines":[{"sku":"A","qty":"two"}]}',
    });
    expectInvalid(
      outcome,
      "shipOrder",
      "orderId: expected string, received number; quantity: expected int, received number; address.zip: Invalid string: must match pattern /^\\d{5}$/; lines[0].qty: expected number, received string",
    );
  });

  it("rejects unknown fields instead of silently dropping them, at any depth", async () => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: { orderId: "ORD-1", quantity: 1, expres: true } }),
      "shipOrder",
      "(root): unknown field 'expres' (remove it)",
    );
    expectInvalid(
      await tools.invoke({
        name: "shipOrder",
        arguments: {
          orderId: "ORD-1",
          quantity: 1,
          priority: 1,
          rush: true,
          address: { street: "x", zip: "12345", zipcode: "1" },
          lines: [{ sku: "A", qty: 1, note: "" }],
        },
      }),
      "shipOrder",
      "(root): unknown fields 'priority', 'rush' (remove them); address: unknown field 'zipcode' (remove it); lines[0]: unknown field 'note' (remove it)",
    );
  });

  it("reports unknown fields together with other problems", async () => {
    expectInvalid(
      await tools.invoke({ name: "shipOrder", arguments: { orderId: 1, quantity: 1, colour: "red" } }),
      "shipOrder",
      "(root): unknown field 'colour' (remove it); orderId: expected string, received number",
    );
  });

  it("lets a loose object keep extra fields", async () => {
    const outcome = await tools.invoke({
      name: "tagOrder",
      arguments: { orderId: "ORD-1", labels: { source: "email", campaign: "spring" } },
    });
    expect(outcome).toMatchObject({
      status: "ok",
      data: { orderId: "ORD-1", labels: { source: "email", campaign: "spring" } },
    });
  });

  it("keeps the list short: at most 8 problems, then a count", async () => {
    const lines = Array.from({ length: 10 }, (_, i) => ({ sku: i, qty: "n" }));
    const outcome = await tools.invoke({ name: "shipOrder", arguments: { orderId: 1, quantity: "x", lines } });
    const problems = outcome
      .message!.replace(/^Invalid arguments for tool 'shipOrder': /, "")
      .replace(/\.$/, "")
      .split("; ");
    expect(problems).toHaveLength(9);
    expect(problems[8]).toBe("... and 14 more");
    expect(outcome.message!.length).toBeLessThan(600);
  });
});

describe("invoke: payload limits", () => {
  const note = (chars: number, unit = "x") => JSON.stringify({ note: unit.repeat(chars) });
  const overhead = note(0).length;

  it("accepts a payload of exactly 1 MB and refuses one byte more", async () => {
    expect(DEFAULT_ARGUMENT_LIMITS).toEqual({ maxBytes: 1_048_576, maxDepth: 64 });
    expect((await tools.invoke({ name: "storeNote", arguments: note(1_048_576 - overhead) })).status).toBe("ok");
    received.length = 0;
    expectInvalid(
      await tools.invoke({ name: "storeNote", arguments: note(1_048_577 - overhead) }),
      "storeNote",
      "the arguments are 1048577 bytes; the limit is 1048576 bytes",
    );
  });

  it("counts UTF-8 bytes, not characters", async () => {
    const chars = 350_000; // 3 bytes each: about 1.05 MB in 350 k characters
    expectInvalid(
      await tools.invoke({ name: "storeNote", arguments: note(chars, "€") }),
      "storeNote",
      `the arguments are ${chars * 3 + overhead} bytes; the limit is 1048576 bytes`,
    );
  });

  it("applies the limit to object arguments too", async () => {
    expectInvalid(
      await tools.invoke({ name: "storeNote", arguments: { note: "x".repeat(1_048_576) } }),
      "storeNote",
      `the arguments are ${1_048_576 + overhead} bytes; the limit is 1048576 bytes`,
    );
    expect((await tools.invoke({ name: "storeNote", arguments: { note: "x".repeat(1_000_000) } })).status).toBe("ok");
    received.length = 0;
    // 175 k characters, but 6 bytes of JSON each once escaped: about 1.05 MB.
    expectInvalid(
      await tools.invoke({ name: "storeNote", arguments: { note: "\u0001".repeat(175_000) } }),
      "storeNote",
      `the arguments are ${175_000 * 6 + overhead} bytes; the limit is 1048576 bytes`,
    );
  });

  it("honours a custom limits.maxBytes", async () => {
    const small = invoker({ maxBytes: 100 });
    expect((await small.invoke({ name: "storeNote", arguments: note(100 - overhead) })).status).toBe("ok");
    received.length = 0;
    expectInvalid(
      await small.invoke({ name: "storeNote", arguments: note(101 - overhead) }),
      "storeNote",
      "the arguments are 101 bytes; the limit is 100 bytes",
    );
    expectInvalid(
      await small.invoke({ name: "storeNote", arguments: { note: "y".repeat(200) } }),
      "storeNote",
      `the arguments are ${200 + overhead} bytes; the limit is 100 bytes`,
    );
  });

  /** `{ tree: { a: { a: ... } } }`, nested `depth` objects deep counting the arguments object. */
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = {};
    for (let i = 2; i < depth; i++) value = { a: value };
    return { tree: value };
  };

  it("accepts nesting 64 deep and refuses 65, as a string or an object", async () => {
    expect((await tools.invoke({ name: "storeNote", arguments: JSON.stringify(nested(64)) })).status).toBe("ok");
    received.length = 0;
    const deep = await tools.invoke({ name: "storeNote", arguments: JSON.stringify(nested(65)) });
    expect(deep).toMatchObject({ errorCode: "INVALID_ARGUMENTS", retriable: false });
    expect(deep.message).toMatch(
      /^Invalid arguments for tool 'storeNote': tree(\.a){63}: the arguments nest deeper than 64 levels\.$/,
    );
    expect((await tools.invoke({ name: "storeNote", arguments: nested(65) })).errorCode).toBe("INVALID_ARGUMENTS");
    expect(received).toEqual([]);
  });

  it("counts arrays as levels too, and stops a cyclic object argument", async () => {
    let list: unknown = [];
    for (let i = 0; i < 70; i++) list = [list];
    expect((await tools.invoke({ name: "storeNote", arguments: { tree: list } })).message).toContain(
      "the arguments nest deeper than 64 levels",
    );
    const cyclic: Record<string, unknown> = { note: "x" };
    cyclic.tree = cyclic;
    expect((await tools.invoke({ name: "storeNote", arguments: cyclic })).errorCode).toBe("INVALID_ARGUMENTS");
    expect(received).toEqual([]);
  });

  it("honours a custom limits.maxDepth", async () => {
    const shallow = invoker({ maxDepth: 3 });
    expect((await shallow.invoke({ name: "storeNote", arguments: { tree: { a: 1 } } })).status).toBe("ok");
    received.length = 0;
    // Objects and arrays are levels (the arguments object is the first); values inside them are not.
    expect((await shallow.invoke({ name: "storeNote", arguments: { tree: { a: { b: 1 } } } })).status).toBe("ok");
    received.length = 0;
    expect((await shallow.invoke({ name: "storeNote", arguments: { tree: { a: { b: { c: 1 } } } } })).message).toBe(
      "Invalid arguments for tool 'storeNote': tree.a.b: the arguments nest deeper than 3 levels.",
    );
  });
});

describe("invoke: prototype keys never reach the tool", () => {
  it.each([
    ['{"note":"x","__proto__":{"polluted":true}}', "__proto__: the key '__proto__' is not allowed"],
    ['{"note":"x","constructor":{"prototype":{"polluted":true}}}', "constructor: the key 'constructor' is not allowed"],
    [
      '{"tree":{"deep":[{"__proto__":{"polluted":true}}]}}',
      "tree.deep[0].__proto__: the key '__proto__' is not allowed",
    ],
    ['{"tree":{"prototype":{"polluted":true}}}', "tree.prototype: the key 'prototype' is not allowed"],
  ])("refuses %s", async (json, problem) => {
    expectInvalid(await tools.invoke({ name: "storeNote", arguments: json }), "storeNote", problem);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("refuses an own __proto__ key on an object argument", async () => {
    const args = JSON.parse('{"note":"x","__proto__":{"polluted":true}}') as Record<string, unknown>;
    expectInvalid(
      await tools.invoke({ name: "storeNote", arguments: args }),
      "storeNote",
      "__proto__: the key '__proto__' is not allowed",
    );
  });
});

describe("invoke: unknown tool", () => {
  it("answers UNKNOWN_TOOL naming the closest tools", async () => {
    const outcome = await tools.invoke({ name: "shipOrders", arguments: { orderId: "ORD-1" }, callId: "c7" });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "UNKNOWN_TOOL",
      retriable: false,
      message: "There is no tool named 'shipOrders'.",
      suggestion: "Did you mean 'shipOrder'? Available tools: shipOrder, storeNote, tagOrder.",
      metadata: { tool: "shipOrders", callId: "c7", attempts: 0 },
    });
    expect((await tools.invoke({ name: "ship" })).suggestion).toBe(
      "Did you mean 'shipOrder'? Available tools: shipOrder, storeNote, tagOrder.",
    );
    expect((await tools.invoke({ name: "SHIPORDER" })).suggestion).toContain("Did you mean 'shipOrder'?");
    expect(received).toEqual([]);
  });

  it("lists the available tools when nothing is close", async () => {
    expect((await tools.invoke({ name: "refund_payment" })).suggestion).toBe(
      "Use one of the available tools: shipOrder, storeNote, tagOrder.",
    );
  });

  it("keeps a hostile name short", async () => {
    const outcome = await tools.invoke({ name: "x".repeat(10_000) });
    expect(outcome.errorCode).toBe("UNKNOWN_TOOL");
    expect(outcome.message!.length).toBeLessThan(200);
  });
});
