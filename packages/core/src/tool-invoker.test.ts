import { container as rootContainer } from "tsyringe";
import { describe, expect, it } from "vitest";
import { createToolInvoker, formatToolOutcome, hooks, ToolRegistrationError } from "./index.js";
import { OrderTools } from "../test/fixtures.js";

const make = (middleware = [] as Parameters<typeof createToolInvoker>[1]["middleware"]) =>
  createToolInvoker(rootContainer.createChildContainer(), {
    functions: [OrderTools],
    ...(middleware ? { middleware } : {}),
  });

describe("createToolInvoker", () => {
  it("resolves the class with its injected dependency and returns an ok outcome", async () => {
    const outcome = await make().invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(outcome).toMatchObject({
      status: "ok",
      data: "shipped",
      retriable: false,
      metadata: { tool: "getOrderStatus", attempts: 1 },
    });
    expect(outcome.metadata.callId).toMatch(/^call_/);
  });

  it("accepts the raw JSON string a model produced", async () => {
    const outcome = await make().invoke({ name: "getOrderStatus", arguments: '{"orderId":"ORD-404"}', callId: "c1" });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      suggestion: "Verify the ID with the customer.",
      metadata: { callId: "c1" },
    });
  });

  it("answers an unknown tool with UNKNOWN_TOOL and the closest names", async () => {
    const outcome = await make().invoke({ name: "getOrderStats", arguments: {} });
    expect(outcome.errorCode).toBe("UNKNOWN_TOOL");
    expect(outcome.suggestion).toContain("'getOrderStatus'");
  });

  it("rejects when a tool throws and no result middleware is installed", async () => {
    await expect(make().invoke({ name: "explode" })).rejects.toThrow(TypeError);
  });

  it("formats an envelope with snake_case keys", async () => {
    const outcome = await make().invoke({ name: "getOrderStatus", arguments: { orderId: "X" }, callId: "c9" });
    const parsed = JSON.parse(formatToolOutcome(outcome));
    expect(parsed).toMatchObject({
      status: "error",
      error_code: "ORDER_NOT_FOUND",
      retriable: false,
      metadata: { tool: "getOrderStatus", call_id: "c9" },
    });
  });

  it("runs hooks in stack order and hands items to the tool", async () => {
    const order: string[] = [];
    const layer = (name: string) =>
      hooks({
        beforeCall: (call) => {
          order.push(`before:${name}`);
          call.items.set("requestId", "req-1");
        },
        afterCall: () => void order.push(`after:${name}`),
      });
    const outcome = await make([layer("a"), layer("b")]).invoke({ name: "echo_context", arguments: { value: 2 } });
    expect(order).toEqual(["before:a", "before:b", "after:b", "after:a"]);
    expect(outcome.data).toMatchObject({ value: 2, attempt: 1, requestId: "req-1" });
  });

  it("refuses a class without @AgentFunctionGroup", () => {
    class Plain {}
    expect(() => createToolInvoker(rootContainer.createChildContainer(), { functions: [Plain] })).toThrow(
      ToolRegistrationError,
    );
  });
});
