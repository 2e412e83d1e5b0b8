import type { ToolOutcome } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { kitBehaviour, OrderTools } from "../../test/agent-kit-fixtures.js";
import { usingAgentFramework } from "./index.js";

// A body that returns a plain value is answered by every layer of the documented stack at once
// (`ToolCallContext.noteReturnedSync`): the outcome is ready one microtask after `invoke`, and a
// body that returns a promise still goes through each layer's asynchronous path.
describe("the documented stack answers a synchronous body at once", () => {
  const factory = () =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(OrderTools)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });

  it("a plain value: its outcome, metadata complete, one microtask after invoke", async () => {
    kitBehaviour.clear();
    const tools = factory().tools;
    const pending = tools.invoke({ name: "lookupOrder", arguments: { orderId: "o1" } });
    let early: ToolOutcome | undefined;
    void pending.then((outcome) => (early = outcome));
    await undefined;
    expect(early).toMatchObject({
      status: "ok",
      data: { tool: "lookupOrder", orderId: "o1" },
      metadata: { tool: "lookupOrder", attempts: 1 },
    });
    expect(await pending).toBe(early);
  });

  it("a returned failure value and a body that throws are answered as before", async () => {
    const tools = factory().tools;
    kitBehaviour.set("lookupOrder", () => ({ ok: false, error: "order not found" }));
    const failed = await tools.invoke({ name: "lookupOrder", arguments: { orderId: "o1" } });
    expect(failed).toMatchObject({ status: "error", errorCode: "TOOL_ERROR" });
    kitBehaviour.set("lookupOrder", () => {
      throw new TypeError("secret internals");
    });
    const thrown = await tools.invoke({ name: "lookupOrder", arguments: { orderId: "o1" } });
    expect(thrown).toMatchObject({ status: "error", errorCode: "UNHANDLED_ERROR" });
    expect(JSON.stringify(thrown)).not.toContain("secret internals");
    kitBehaviour.clear();
  });

  it("a body that returns a promise is not answered in the first microtask, and still settles ok", async () => {
    kitBehaviour.set("lookupOrder", async () => ({ late: true }));
    const tools = factory().tools;
    const pending = tools.invoke({ name: "lookupOrder", arguments: { orderId: "o1" } });
    let early: ToolOutcome | undefined;
    void pending.then((outcome) => (early = outcome));
    await undefined;
    expect(early).toBeUndefined();
    expect(await pending).toMatchObject({ status: "ok", data: { late: true } });
    kitBehaviour.clear();
  });
});
