import { describe, expect, it } from "vitest";
import { z } from "zod";
import { quietSafeParse } from "./quiet-parse.js";

// quietSafeParse must report exactly what safeParse reports: invalid-argument messages reach the model.
const cases: [string, z.ZodType, unknown][] = [
  ["wrong type", z.object({ a: z.number(), b: z.number() }), { a: 1, b: "x" }],
  ["missing field", z.object({ a: z.number(), b: z.number() }), { a: 1 }],
  [
    "nested and array paths",
    z.object({ items: z.array(z.object({ qty: z.number().int().positive() })) }),
    { items: [{ qty: 1 }, { qty: -2 }, { qty: 1.5 }] },
  ],
  ["custom message", z.object({ id: z.string().min(3, "id is too short") }), { id: "x" }],
  ["schema error map", z.object({ n: z.number({ error: () => "n must be a number" }) }), { n: "1" }],
  [
    "refinement",
    z
      .object({ from: z.number(), to: z.number() })
      .refine((v) => v.from <= v.to, { message: "from after to", path: ["to"] }),
    { from: 2, to: 1 },
  ],
  ["strict object", z.strictObject({ a: z.number() }), { a: 1, extra: true }],
  [
    "union",
    z.union([z.object({ kind: z.literal("a") }), z.object({ kind: z.literal("b"), n: z.number() })]),
    { kind: "b" },
  ],
  ["enum and format", z.object({ mode: z.enum(["fast", "safe"]), email: z.email() }), { mode: "slow", email: "nope" }],
  [
    "valid with transform and default",
    z.object({ n: z.string().transform((s) => s.length), tag: z.string().default("x") }),
    { n: "abc" },
  ],
];

describe("quietSafeParse", () => {
  it.each(cases)("reports what safeParse reports: %s", (_, schema, value) => {
    const expected = schema.safeParse(value);
    const actual = quietSafeParse(schema, value);
    expect(actual.success).toBe(expected.success);
    if (expected.success && actual.success) expect(actual.data).toEqual(expected.data);
    if (!expected.success && !actual.success) expect(actual.issues).toEqual(expected.error.issues);
  });

  it("uses the global error map, as safeParse does", () => {
    z.config({
      customError: (issue) =>
        issue.code === "invalid_type" ? `bad type at ${issue.path?.join(".") ?? "?"}` : undefined,
    });
    try {
      const schema = z.object({ a: z.number() });
      const actual = quietSafeParse(schema, { a: "x" });
      expect(actual).toEqual({ success: false, issues: schema.safeParse({ a: "x" }).error?.issues });
      expect(actual.success ? "" : actual.issues[0]?.message).toBe("bad type at a");
    } finally {
      z.config({ customError: undefined });
    }
  });

  it("throws like safeParse for a schema that needs async parsing", () => {
    const schema = z.object({ a: z.number() }).refine(async () => true);
    expect(() => schema.safeParse({ a: 1 })).toThrow(/Promise/);
    expect(() => quietSafeParse(schema, { a: 1 })).toThrow(/Promise/);
  });
});
