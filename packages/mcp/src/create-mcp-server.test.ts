import { formatToolOutcome } from "@needlework/core";
import { describe, expect, it, vi } from "vitest";
import { whenWaitCancelled, whenWaitStarts } from "../../ai-sdk/test/shop-tools.js";
import { connect, envelopeOf } from "../test/connect.js";

describe("serveMcp over the SDK's in-memory transport", () => {
  it("tools/list gives names, descriptions, JSON Schemas and annotations", async () => {
    const client = await connect({ name: "shop", version: "2.0.0", instructions: "Be brief." });
    expect(client.getServerVersion()).toMatchObject({ name: "shop", version: "2.0.0" });
    expect(client.getInstructions()).toBe("Be brief.");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "cancelOrder",
      "explode",
      "getOrderStatus",
      "markSeen",
      "waitForCancel",
    ]);
    expect(tools.find((t) => t.name === "getOrderStatus")).toMatchObject({
      description: "Looks up an order by ID.",
      inputSchema: {
        type: "object",
        properties: { orderId: { type: "string", minLength: 1, description: "Order id, like 'ORD-1'." } },
        required: ["orderId"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
    });
  });

  it("a successful call returns the ok envelope as text, isError false", async () => {
    const client = await connect({ runId: "run-9" });
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(result.isError).toBe(false);
    expect(envelopeOf(result)).toMatchObject({
      status: "ok",
      retriable: false,
      data: { orderId: "ORD-1", status: "shipped", runId: "run-9" },
      metadata: { tool: "getOrderStatus", attempts: 1, call_id: expect.stringMatching(/^mcp_/) },
    });
  });

  it("a failing call returns the error envelope with isError true", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-404" } });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({
      status: "error",
      error_code: "ORDER_NOT_FOUND",
      message: "Order 'ORD-404' not found",
      suggestion: "Verify the ID with the customer.",
    });
  });

  it("a thrown exception is an UNHANDLED_ERROR result that never leaks the exception's message", async () => {
    const onError = vi.fn();
    const client = await connect({ onError });
    const result = await client.callTool({ name: "explode", arguments: {} });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({
      status: "error",
      error_code: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (TypeError). The call was not retried.",
    });
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(onError).toHaveBeenCalledWith(expect.any(TypeError), {
      name: "explode",
      callId: expect.stringMatching(/^mcp_/),
    });
  });

  it("an unknown tool is an UNKNOWN_TOOL result (isError), not a protocol error", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "getOrderStatu", arguments: {} });
    expect(result.isError).toBe(true);
    const envelope = envelopeOf(result);
    expect(envelope).toMatchObject({
      status: "error",
      error_code: "UNKNOWN_TOOL",
      message: "There is no tool named 'getOrderStatu'.",
    });
    expect(envelope.suggestion).toContain("'getOrderStatus'");
  });

  it("invalid arguments are an INVALID_ARGUMENTS result naming the field", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: 42 } });
    expect(result.isError).toBe(true);
    const envelope = envelopeOf(result);
    expect(envelope).toMatchObject({
      status: "error",
      error_code: "INVALID_ARGUMENTS",
      suggestion: "Call the tool again with arguments that match its schema.",
    });
    expect(envelope.message).toContain("orderId");
  });

  it("a call without arguments is validated like an empty object", async () => {
    const client = await connect();
    expect(envelopeOf(await client.callTool({ name: "getOrderStatus" }))).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
    });
  });

  it("tools limits what is listed and callable, without naming hidden tools", async () => {
    const client = await connect({ tools: ["getOrderStatus"] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["getOrderStatus"]);
    const result = await client.callTool({ name: "explode", arguments: {} });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result)).toMatchObject({
      error_code: "UNKNOWN_TOOL",
      suggestion: "Use one of the available tools: getOrderStatus.",
    });
    await expect(connect({ tools: ["nope"] })).rejects.toThrow(/no tool named 'nope'/);
  });

  it("format renders the text content (e.g. a factory's formatOutcome); isError still follows the status", async () => {
    const client = await connect({ format: (outcome) => formatToolOutcome(outcome, { style: "needlr" }) });
    const failed = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-404" } });
    expect(failed.isError).toBe(true);
    expect(envelopeOf(failed)).toEqual({
      error: { message: "Order 'ORD-404' not found", suggestion: "Verify the ID with the customer." },
    });
    const ok = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(ok.isError).toBe(false);
  });

  it("a runId function learns the request", async () => {
    const runId = vi.fn(() => "run-from-request");
    const client = await connect({ runId });
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(runId).toHaveBeenCalledWith({
      toolName: "getOrderStatus",
      requestId: expect.any(Number),
      sessionId: undefined,
    });
    expect(envelopeOf(result)).toMatchObject({ data: { runId: "run-from-request" } });
  });

  it("a client-side cancellation reaches the tool through the request's abort signal", async () => {
    const onError = vi.fn();
    const client = await connect({ onError });
    const controller = new AbortController();
    const started = whenWaitStarts();
    const cancelled = whenWaitCancelled();
    const call = client.callTool({ name: "waitForCancel", arguments: {} }, undefined, { signal: controller.signal });
    await started;
    controller.abort("user left");
    await expect(call).rejects.toThrow(/user left/);
    await expect(cancelled).resolves.toBe("user left");
    expect(onError).not.toHaveBeenCalled();
  });
});
