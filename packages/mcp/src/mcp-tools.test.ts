import { describe, expect, it } from "vitest";
import { connect, envelopeOf } from "../test/connect.js";

describe("tools/list annotations and structured output (official SDK Client)", () => {
  it("annotations are honest: read-only, idempotent and everything else (destructive by the spec's default)", async () => {
    const { tools } = await (await connect()).listTools();
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(annotations.getOrderStatus).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false });
    expect(annotations.markSeen).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(annotations.cancelOrder).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
  });

  it("a tool with an output schema declares outputSchema and returns matching structuredContent beside the text", async () => {
    const client = await connect({ runId: "run-3" });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "getOrderStatus")?.outputSchema).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string" }, status: { type: "string" }, runId: { type: "string" } },
      required: ["orderId", "status", "runId"],
    });
    expect(tools.find((t) => t.name === "cancelOrder")).not.toHaveProperty("outputSchema");
    // The SDK Client validates structuredContent against the listed outputSchema and throws on a mismatch.
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(result.structuredContent).toEqual({ orderId: "ORD-1", status: "shipped", runId: "run-3" });
    expect(envelopeOf(result)).toMatchObject({ status: "ok", data: result.structuredContent });
  });

  it("a failed call of such a tool has no structuredContent (isError results are not validated)", async () => {
    const result = await (await connect()).callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-404" } });
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty("structuredContent");
  });
});
