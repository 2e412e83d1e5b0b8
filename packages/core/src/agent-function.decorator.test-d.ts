import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, ToolResult, type AgentFunctionMethod, type ToolContext } from "./index.js";

const OrderInput = z.object({ orderId: z.string(), quantity: z.number().int().default(1) });

describe("@AgentFunction checks the method against its input schema", () => {
  it("accepts a method whose first parameter takes z.output of input", () => {
    @AgentFunctionGroup()
    class OrderTools {
      @AgentFunction({ description: "Looks up an order.", input: OrderInput })
      exact(args: z.output<typeof OrderInput>, ctx: ToolContext): string {
        return `${args.orderId}:${args.quantity}:${ctx.attempt}`;
      }

      @AgentFunction({ description: "Destructures.", input: OrderInput })
      destructured({ orderId }: { orderId: string }): string {
        return orderId;
      }

      @AgentFunction({ description: "Takes a wider type.", input: OrderInput })
      wider(args: { orderId: string | number; quantity?: number }): unknown {
        return args;
      }

      @AgentFunction({ description: "Ignores its arguments.", input: z.object({}) })
      noArgs(): number {
        return 1;
      }

      @AgentFunction({ description: "Is async.", input: OrderInput })
      async asynchronous(args: z.infer<typeof OrderInput>): Promise<number> {
        return args.quantity;
      }
    }
    expectTypeOf(OrderTools).toBeConstructibleWith();
  });

  it("rejects a method whose first parameter does not match", () => {
    @AgentFunctionGroup()
    class OrderTools {
      // @ts-expect-error orderId is a string in the schema, not a number
      @AgentFunction({ description: "Wrong field type.", input: OrderInput })
      wrongType(args: { orderId: number }): unknown {
        return args;
      }

      // @ts-expect-error the schema has no `customerId`, so the tool would read undefined
      @AgentFunction({ description: "Requires a field the schema lacks.", input: OrderInput })
      extraField(args: { orderId: string; customerId: string }): unknown {
        return args;
      }

      // @ts-expect-error quantity is a number once parsed (its default fills it in), never a string
      @AgentFunction({ description: "Wrong default type.", input: OrderInput })
      wrongDefault(args: { orderId: string; quantity: string }): unknown {
        return args;
      }

      // @ts-expect-error the second parameter is a ToolContext
      @AgentFunction({ description: "Wrong context type.", input: OrderInput })
      wrongContext(_args: { orderId: string }, ctx: { tenant: string }): unknown {
        return ctx;
      }
    }
    expectTypeOf(OrderTools).toBeConstructibleWith();
  });

  it("describes the accepted method shape", () => {
    expectTypeOf<AgentFunctionMethod<typeof OrderInput>>().parameters.toEqualTypeOf<
      [{ orderId: string; quantity: number }, ToolContext]
    >();
  });
});

describe("ToolResult infers its value type", () => {
  it("ok(value) is a ToolResult of that value", () => {
    expectTypeOf(ToolResult.ok("shipped")).toEqualTypeOf<ToolResult<string>>();
    expectTypeOf(ToolResult.ok({ orderId: "ORD-1", total: 12 })).toEqualTypeOf<
      ToolResult<{ orderId: string; total: number }>
    >();
    const result = ToolResult.ok([1, 2, 3]);
    if (result.kind === "ok") expectTypeOf(result.value).toEqualTypeOf<number[]>();
  });

  it("fail and unhandledFailure fit any ToolResult", () => {
    expectTypeOf(ToolResult.fail("nope")).toEqualTypeOf<ToolResult<never>>();
    expectTypeOf(ToolResult.fail("nope")).toExtend<ToolResult<string>>();
    const lookup = (found: boolean): ToolResult<string> =>
      found ? ToolResult.ok("shipped") : ToolResult.fail("Order not found", { code: "ORDER_NOT_FOUND" });
    expectTypeOf(lookup).returns.toEqualTypeOf<ToolResult<string>>();
    expectTypeOf(ToolResult.partial({ succeeded: [{ id: "c1" }], failed: [] })).toEqualTypeOf<
      ToolResult<{ id: string }>
    >();
  });
});
