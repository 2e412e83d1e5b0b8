import { container as rootContainer } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  agentFunctionRegistry,
  createToolInvoker,
  toAnthropicTools,
  toMcpTools,
  toOpenAITools,
  toolDefinitionOf,
} from "./index.js";

@AgentFunctionGroup()
class OrderTools {
  @AgentFunction({
    description: "Looks up an order by ID.",
    input: z.object({
      orderId: z.string().describe("Order id, like 'ORD-12345'."),
      include: z.object({ items: z.boolean(), history: z.boolean().nullable() }),
    }),
  })
  getOrderStatus(): void {}

  @AgentFunction({
    name: "search_orders",
    description: "Searches orders.",
    input: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(50).optional() }),
    output: z.object({ ids: z.array(z.string()) }),
    idempotent: true,
    tags: ["read"],
  })
  searchOrders(): void {}

  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string(), reason: z.enum(["damaged", "late"]) }),
    requiresApproval: true,
    compensate: { tool: "charge_order" },
    dependsOn: ["getOrderStatus"],
  })
  refundOrder(): void {}
}

const descriptors = agentFunctionRegistry.get(OrderTools)!.functions;
const definitions = descriptors.map(toolDefinitionOf);

describe("toolDefinitionOf", () => {
  it("gives name, description, JSON Schema from zod, flags and tags", () => {
    expect(definitions).toMatchInlineSnapshot(`
      [
        {
          "description": "Looks up an order by ID.",
          "flags": {
            "dependsOn": [],
            "effects": "external",
            "idempotent": false,
            "readOnly": false,
            "reads": "trusted",
            "requiresApproval": false,
            "sensitive": false,
          },
          "name": "getOrderStatus",
          "parameters": {
            "additionalProperties": false,
            "properties": {
              "include": {
                "additionalProperties": false,
                "properties": {
                  "history": {
                    "type": [
                      "boolean",
                      "null",
                    ],
                  },
                  "items": {
                    "type": "boolean",
                  },
                },
                "required": [
                  "items",
                  "history",
                ],
                "type": "object",
              },
              "orderId": {
                "description": "Order id, like 'ORD-12345'.",
                "type": "string",
              },
            },
            "required": [
              "orderId",
              "include",
            ],
            "type": "object",
          },
          "tags": [],
        },
        {
          "description": "Searches orders.",
          "flags": {
            "dependsOn": [],
            "effects": "external",
            "idempotent": true,
            "readOnly": false,
            "reads": "trusted",
            "requiresApproval": false,
            "sensitive": false,
          },
          "name": "search_orders",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "ids": {
                "items": {
                  "type": "string",
                },
                "type": "array",
              },
            },
            "required": [
              "ids",
            ],
            "type": "object",
          },
          "parameters": {
            "additionalProperties": false,
            "properties": {
              "limit": {
                "maximum": 50,
                "minimum": 1,
                "type": "integer",
              },
              "query": {
                "minLength": 1,
                "type": "string",
              },
            },
            "required": [
              "query",
            ],
            "type": "object",
          },
          "tags": [
            "read",
          ],
        },
        {
          "description": "Refunds an order.",
          "flags": {
            "compensate": "charge_order",
            "dependsOn": [
              "getOrderStatus",
            ],
            "effects": "external",
            "idempotent": false,
            "readOnly": false,
            "reads": "trusted",
            "requiresApproval": true,
            "sensitive": false,
          },
          "name": "refundOrder",
          "parameters": {
            "additionalProperties": false,
            "properties": {
              "orderId": {
                "type": "string",
              },
              "reason": {
                "enum": [
                  "damaged",
                  "late",
                ],
                "type": "string",
              },
            },
            "required": [
              "orderId",
              "reason",
            ],
            "type": "object",
          },
          "tags": [],
        },
      ]
    `);
  });

  it("is what an invoker exposes as `definitions`", () => {
    const invoker = createToolInvoker(rootContainer.createChildContainer(), { functions: [OrderTools] });
    expect(invoker.definitions).toEqual(definitions);
    expect(invoker.tools.map((t) => t.name)).toEqual(["getOrderStatus", "search_orders", "refundOrder"]);
    expect(invoker.get("search_orders")?.methodName).toBe("searchOrders");
    expect(invoker.get("nope")).toBeUndefined();
  });

  it("leaves objects declared loose open", () => {
    @AgentFunctionGroup()
    class LooseTools {
      @AgentFunction({ description: "Stores metadata.", input: z.looseObject({ id: z.string() }) })
      store(): void {}
    }
    const [definition] = agentFunctionRegistry.get(LooseTools)!.functions.map(toolDefinitionOf);
    expect(definition!.parameters.additionalProperties).toEqual({});
    agentFunctionRegistry.delete(LooseTools);
  });
});

describe("toOpenAITools", () => {
  it("turns strict mode on where the schema allows it and off with optional fields", () => {
    expect(toOpenAITools(definitions)).toMatchInlineSnapshot(`
      [
        {
          "function": {
            "description": "Looks up an order by ID.",
            "name": "getOrderStatus",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "include": {
                  "additionalProperties": false,
                  "properties": {
                    "history": {
                      "type": [
                        "boolean",
                        "null",
                      ],
                    },
                    "items": {
                      "type": "boolean",
                    },
                  },
                  "required": [
                    "items",
                    "history",
                  ],
                  "type": "object",
                },
                "orderId": {
                  "description": "Order id, like 'ORD-12345'.",
                  "type": "string",
                },
              },
              "required": [
                "orderId",
                "include",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Searches orders.",
            "name": "search_orders",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "limit": {
                  "maximum": 50,
                  "minimum": 1,
                  "type": "integer",
                },
                "query": {
                  "minLength": 1,
                  "type": "string",
                },
              },
              "required": [
                "query",
              ],
              "type": "object",
            },
            "strict": false,
          },
          "type": "function",
        },
        {
          "function": {
            "description": "Refunds an order.",
            "name": "refundOrder",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "orderId": {
                  "type": "string",
                },
                "reason": {
                  "enum": [
                    "damaged",
                    "late",
                  ],
                  "type": "string",
                },
              },
              "required": [
                "orderId",
                "reason",
              ],
              "type": "object",
            },
            "strict": true,
          },
          "type": "function",
        },
      ]
    `);
  });

  it("treats a field with a default as optional (not strict)", () => {
    const [tool] = toOpenAITools([
      {
        ...definitions[0]!,
        parameters: { type: "object", properties: { n: { type: "number", default: 3 } }, required: [] },
      },
    ]);
    expect(tool!.function.strict).toBe(false);
  });

  it("refuses strict: true for a schema that cannot be strict, and omits `strict` with strict: false", () => {
    expect(() => toOpenAITools(definitions, { strict: true })).toThrow(
      "Tool 'search_orders' cannot use OpenAI strict mode",
    );
    expect(toOpenAITools(definitions, { strict: false }).map((t) => "strict" in t.function)).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("toAnthropicTools", () => {
  it("uses name, description and input_schema", () => {
    expect(toAnthropicTools(definitions.slice(1, 3))).toMatchInlineSnapshot(`
      [
        {
          "description": "Searches orders.",
          "input_schema": {
            "additionalProperties": false,
            "properties": {
              "limit": {
                "maximum": 50,
                "minimum": 1,
                "type": "integer",
              },
              "query": {
                "minLength": 1,
                "type": "string",
              },
            },
            "required": [
              "query",
            ],
            "type": "object",
          },
          "name": "search_orders",
        },
        {
          "description": "Refunds an order.",
          "input_schema": {
            "additionalProperties": false,
            "properties": {
              "orderId": {
                "type": "string",
              },
              "reason": {
                "enum": [
                  "damaged",
                  "late",
                ],
                "type": "string",
              },
            },
            "required": [
              "orderId",
              "reason",
            ],
            "type": "object",
          },
          "name": "refundOrder",
        },
      ]
    `);
  });
});

describe("toMcpTools", () => {
  it("uses inputSchema and honest annotations (destructive unless read-only or idempotent)", () => {
    expect(toMcpTools(definitions.slice(1, 3))).toMatchInlineSnapshot(`
      [
        {
          "annotations": {
            "destructiveHint": false,
            "idempotentHint": true,
            "readOnlyHint": false,
          },
          "description": "Searches orders.",
          "inputSchema": {
            "additionalProperties": false,
            "properties": {
              "limit": {
                "maximum": 50,
                "minimum": 1,
                "type": "integer",
              },
              "query": {
                "minLength": 1,
                "type": "string",
              },
            },
            "required": [
              "query",
            ],
            "type": "object",
          },
          "name": "search_orders",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "ids": {
                "items": {
                  "type": "string",
                },
                "type": "array",
              },
            },
            "required": [
              "ids",
            ],
            "type": "object",
          },
        },
        {
          "annotations": {
            "destructiveHint": true,
            "idempotentHint": false,
            "readOnlyHint": false,
          },
          "description": "Refunds an order.",
          "inputSchema": {
            "additionalProperties": false,
            "properties": {
              "orderId": {
                "type": "string",
              },
              "reason": {
                "enum": [
                  "damaged",
                  "late",
                ],
                "type": "string",
              },
            },
            "required": [
              "orderId",
              "reason",
            ],
            "type": "object",
          },
          "name": "refundOrder",
        },
      ]
    `);
  });
});
