import { AgentFunction, AgentFunctionGroup, ToolResult, TransientError } from "@needlework/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { kitBuilder, OrderTools } from "../../test/agent-kit-fixtures.js";
import { chaos, seededRandom } from "./chaos.js";
import { createToolRunner, invokeTool } from "./tool-runner.js";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";

/** A user's repository, injected into the tool class. */
class OrderRepository {
  constructor(private readonly orders: Record<string, string> = {}) {}
  status(id: string): string | undefined {
    return this.orders[id];
  }
}

let flakyCalls = 0;

@AgentFunctionGroup()
class ShopTools {
  constructor(private readonly repository: OrderRepository) {}

  @AgentFunction({
    description: "Gets an order's status.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
  })
  getOrderStatus({ orderId }: { orderId: string }) {
    if (orderId === "boom") throw new RangeError("index 7 out of range");
    const status = this.repository.status(orderId);
    if (!status)
      return ToolResult.fail(`Order '${orderId}' not found`, { code: "ORDER_NOT_FOUND", suggestion: "Check the id." });
    return ToolResult.ok({ orderId, status });
  }

  @AgentFunction({ description: "Flaky.", input: z.object({}), idempotent: true })
  flaky() {
    flakyCalls++;
    if (flakyCalls < 3) throw new TransientError("hiccup");
    return "ok";
  }
}

const services = [[OrderRepository, new OrderRepository({ "ORD-1": "shipped" })]] as const;

afterEach(() => {
  vi.useRealTimers();
});

describe("invokeTool", () => {
  it("invokes a tool with its dependencies provided, returning the outcome", async () => {
    expect(await invokeTool(ShopTools, "getOrderStatus", { orderId: "ORD-1" }, { services })).toMatchObject({
      status: "ok",
      data: { orderId: "ORD-1", status: "shipped" },
    });
    expect(await invokeTool(ShopTools, "getOrderStatus", '{"orderId":"nope"}', { services })).toMatchObject({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      suggestion: "Check the id.",
    });
    expect(await invokeTool(ShopTools, "getOrderStatus", { order: 1 }, { services })).toMatchObject({
      status: "error",
      errorCode: "INVALID_ARGUMENTS",
    });
  });

  it("minimal pipeline: a throw becomes the outcome the model reads; raw pipeline: it rejects", async () => {
    const minimal = await invokeTool(ShopTools, "getOrderStatus", { orderId: "boom" }, { services });
    expect(minimal).toMatchObject({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (RangeError). The call was not retried.",
    });
    await expect(
      invokeTool(ShopTools, "getOrderStatus", { orderId: "boom" }, { services, pipeline: "raw" }),
    ).rejects.toThrow(RangeError);
  });

  it("refuses a tool name the class does not declare (a typo in a test must fail loudly)", async () => {
    await expect(invokeTool(ShopTools, "getOrderStatu", {}, { services })).rejects.toThrow(
      "createToolRunner: 'getOrderStatu' is not a tool of ShopTools (tools: getOrderStatus, flaky).",
    );
  });
});

describe("createToolRunner", () => {
  it("runs through given middleware, e.g. chaos with a seeded random source for repeatable faults", async () => {
    const faults = chaos({ rate: 1, faults: { exception: () => new Error("injected") }, random: seededRandom(1) });
    const runner = createToolRunner(ShopTools, { services, pipeline: [faults] });
    await expect(runner.invoke("getOrderStatus", { orderId: "ORD-1" })).rejects.toThrow("injected");
  });

  it("runs through a built factory's whole pipeline, resilience included (with fake timers)", async () => {
    useFakeTimers();
    flakyCalls = 0;
    const factory = kitBuilder()
      .addAgentFunctions(ShopTools)
      .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 100, jitter: 0 } })
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const runner = createToolRunner(ShopTools, { pipeline: factory });
    const pending = runner.invoke("flaky");
    await vi.runAllTimersAsync();
    expect(await pending).toMatchObject({ status: "ok", data: "ok", metadata: { attempts: 3 } });
    expect(heldTimers()).toBe(0);
    expect(() => createToolRunner(ShopTools, { pipeline: factory, services })).toThrow(
      /`services` and `container` apply to the minimal or raw pipelines/,
    );
    const lookups = createToolRunner(OrderTools, { pipeline: factory.tools });
    expect((await lookups.invoke("lookupOrder", { orderId: "o" })).status).toBe("ok");
  });

  it("refuses a factory that does not offer the class", () => {
    const factory = kitBuilder().buildAgentFactory();
    expect(() => createToolRunner(ShopTools, { pipeline: factory })).toThrow(
      "createToolRunner: the given pipeline does not offer the tools of ShopTools; add the class to the factory (addAgentFunctions).",
    );
  });
});
