import { createToolInvoker } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { ShopTools } from "../test/shop-tools.js";
import { toAiSdkToolApproval } from "./to-ai-sdk-tool-approval.js";
import { toAiSdkTools } from "./to-ai-sdk-tools.js";

const invoker = () => createToolInvoker(container.createChildContainer(), { functions: [ShopTools] });

/** Runs `body` with `values` on Object.prototype (non-enumerable, so zod's own walks still work). */
function polluted<T>(values: Record<string, unknown>, body: () => T): T {
  for (const [key, value] of Object.entries(values))
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true });
  try {
    return body();
  } finally {
    for (const key of Object.keys(values)) delete (Object.prototype as Record<string, unknown>)[key];
  }
}

describe("AI SDK adapter options are read from their own properties", () => {
  it("a polluted Object.prototype supplies no omitMetadata, runId or tool selection", async () => {
    const tools = polluted({ omitMetadata: true, runId: "attacker-run", tools: ["getOrderStatus"] }, () =>
      toAiSdkTools(invoker()),
    );
    expect(Object.keys(tools)).toContain("cancelOrder");
    const execute = tools.getOrderStatus!.execute as (
      input: unknown,
      options: { toolCallId: string },
    ) => Promise<unknown>;
    const output = await execute({ orderId: "ORD-1" }, { toolCallId: "call-1" });
    expect(output).toMatchObject({ status: "ok", metadata: { tool: "getOrderStatus" } });
    expect(JSON.stringify(output)).not.toContain("attacker-run");
    const approval = polluted({ tools: ["getOrderStatus"] }, () => toAiSdkToolApproval(invoker()));
    expect(approval).toMatchObject({ cancelOrder: "user-approval" });
  });
});

describe("lookup tables keyed by provider strings are Maps", () => {
  it("a finish reason or provider id named like an Object.prototype member maps to itself", async () => {
    const { toFinishReason } = await import("./language-model-mapping.js");
    const { toProviderName } = await import("./provider-name.js");
    expect(toFinishReason("constructor")).toBe("constructor");
    expect(toFinishReason({ unified: "toString", raw: "x" })).toBe("toString");
    expect(toProviderName("constructor.chat")).toBe("constructor");
    expect(toFinishReason("tool-calls")).toBe("tool_calls");
  });
});
