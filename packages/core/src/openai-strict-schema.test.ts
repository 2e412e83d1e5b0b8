import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  agentFunctionRegistry,
  strictFallbackReasons,
  toOpenAIStrictSchema,
  toOpenAITools,
  toolDefinitionOf,
  type ToolDefinition,
} from "./index.js";

/** The definition needlework would send for a tool whose input is `input`. */
function definitionFor(input: z.ZodObject): ToolDefinition {
  @AgentFunctionGroup()
  class Tools {
    @AgentFunction({ name: "probe", description: "Probes the schema export.", input })
    probe(): void {}
  }
  const definition = toolDefinitionOf(agentFunctionRegistry.get(Tools)!.functions[0]!);
  agentFunctionRegistry.delete(Tools);
  return definition;
}

function openAI(input: z.ZodObject) {
  const definition = definitionFor(input);
  const [tool] = toOpenAITools([definition]);
  return {
    strict: tool!.function.strict,
    parameters: tool!.function.parameters,
    reasons: strictFallbackReasons(definition),
  };
}

describe("toOpenAITools keeps strict mode inside OpenAI's strict subset", () => {
  it("rewrites a discriminated union's oneOf to anyOf and stays strict", () => {
    const input = z.object({
      payment: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("card"), last4: z.string() }),
        z.object({ kind: z.literal("iban"), iban: z.string() }),
      ]),
    });
    expect(definitionFor(input).parameters.properties).toHaveProperty("payment.oneOf");
    const result = openAI(input);
    expect(result.strict).toBe(true);
    expect(JSON.stringify(result.parameters)).not.toContain("oneOf");
    expect(result.parameters).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "payment": {
            "anyOf": [
              {
                "additionalProperties": false,
                "properties": {
                  "kind": {
                    "const": "card",
                    "type": "string",
                  },
                  "last4": {
                    "type": "string",
                  },
                },
                "required": [
                  "kind",
                  "last4",
                ],
                "type": "object",
              },
              {
                "additionalProperties": false,
                "properties": {
                  "iban": {
                    "type": "string",
                  },
                  "kind": {
                    "const": "iban",
                    "type": "string",
                  },
                },
                "required": [
                  "kind",
                  "iban",
                ],
                "type": "object",
              },
            ],
          },
        },
        "required": [
          "payment",
        ],
        "type": "object",
      }
    `);
  });

  it("falls back to non-strict for a tuple (prefixItems), saying why", () => {
    const result = openAI(z.object({ point: z.tuple([z.number(), z.number()]) }));
    expect(result.strict).toBe(false);
    expect(result.parameters.properties).toHaveProperty("point.prefixItems");
    expect(result.reasons).toMatchInlineSnapshot(`
      [
        "'/point' uses 'prefixItems' (a z.tuple), which is outside OpenAI's strict subset",
        "'/point/items' is false (OpenAI strict mode needs a typed schema here)",
      ]
    `);
  });

  it("falls back to non-strict for an untyped property (z.date() gives {})", () => {
    const result = openAI(z.object({ at: z.date() }));
    expect(result.strict).toBe(false);
    expect(result.reasons).toMatchInlineSnapshot(`
      [
        "'/at' has no type (z.date(), z.any() or z.unknown() give {}), which OpenAI strict mode does not accept",
      ]
    `);
  });

  it("falls back for minLength/maxLength, which OpenAI's strict subset does not list, but keeps pattern and known formats", () => {
    expect(openAI(z.object({ query: z.string().min(1).max(200) })).reasons).toMatchInlineSnapshot(`
      [
        "'/query' uses 'minLength', which is outside OpenAI's strict subset",
        "'/query' uses 'maxLength', which is outside OpenAI's strict subset",
      ]
    `);
    const supported = openAI(
      z.object({
        email: z.email(),
        id: z.uuid(),
        sku: z.string().regex(/^SKU-\d+$/),
        n: z.number().int().min(1).max(9),
        tags: z.array(z.string()).min(1).max(3),
      }),
    );
    expect(supported.reasons).toEqual([]);
    expect(supported.strict).toBe(true);
  });

  it("falls back for a format outside OpenAI's list, optional fields and open objects", () => {
    expect(openAI(z.object({ site: z.url() })).reasons).toEqual([
      "'/site' uses format 'uri', which OpenAI strict mode does not support",
    ]);
    expect(openAI(z.object({ note: z.string().optional() })).reasons).toEqual([
      "the root has optional field(s) 'note' (use .nullable() instead of .optional() or .default())",
    ]);
    expect(openAI(z.object({ meta: z.record(z.string(), z.string()) })).reasons).toMatchInlineSnapshot(`
      [
        "'/meta' uses 'propertyNames', which is outside OpenAI's strict subset",
        "'/meta' is an open object (additionalProperties); strict mode needs closed objects",
      ]
    `);
  });

  it("needs an object at the root", () => {
    expect(toOpenAIStrictSchema({ anyOf: [{ type: "string" }] }).reasons).toEqual([
      "the root is not an object (OpenAI strict mode needs an object at the root, not anyOf)",
    ]);
  });

  it("strict: true names every reason in its error", () => {
    const definition = definitionFor(z.object({ at: z.date() }));
    expect(() => toOpenAITools([definition], { strict: true })).toThrow(
      "Tool 'probe' cannot use OpenAI strict mode: '/at' has no type",
    );
  });
});
