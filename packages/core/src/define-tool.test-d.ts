import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type DefinedTool, defineTool, type ToolContext } from "./index.js";

const OrderInput = z.object({ orderId: z.string(), quantity: z.number().int().default(1) });

describe("defineTool checks the body against its input, as @AgentFunction checks a method", () => {
  it("infers the arguments from a zod input (z.output: defaults applied)", () => {
    const tool = defineTool({
      name: "order",
      description: "Looks up an order.",
      input: OrderInput,
      execute: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ orderId: string; quantity: number }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return args.orderId;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<DefinedTool>();
  });

  it("accepts a wider parameter and refuses one that does not take the input", () => {
    defineTool({
      name: "wider",
      description: "Takes more.",
      input: OrderInput,
      execute: (args: { orderId: string | number; quantity?: number }) => args,
    });
    defineTool({
      name: "narrower",
      description: "Wants a number.",
      input: OrderInput,
      // @ts-expect-error orderId is a string, not a number
      execute: (args: { orderId: number }) => args,
    });
  });

  it("types a JSON Schema tool's arguments as a record, or as the type given", () => {
    defineTool({
      name: "json",
      description: "By JSON Schema.",
      inputSchema: { type: "object", properties: { id: { type: "integer" } } },
      execute: (args) => expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>(),
    });
    defineTool<{ id: number }>({
      name: "typed",
      description: "By JSON Schema, typed.",
      inputSchema: { type: "object", properties: { id: { type: "integer" } } },
      execute: ({ id }) => expectTypeOf(id).toEqualTypeOf<number>(),
    });
  });

  it("wants a name, a description and a body", () => {
    // @ts-expect-error no name
    defineTool({ description: "Nameless.", input: OrderInput, execute: () => 1 });
    // @ts-expect-error no body
    defineTool({ name: "x", description: "Bodiless.", input: OrderInput });
  });
});
