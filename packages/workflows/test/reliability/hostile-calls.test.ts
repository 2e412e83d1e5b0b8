import { describe, expect, it } from "vitest";
import { buildFactory, World } from "./reliability-fixtures.js";

describe("hostile calls", () => {
  it("a tool name whose toString throws answers UNKNOWN_TOOL instead of rejecting", async () => {
    const factory = buildFactory(new World());
    const name = {
      toString() {
        throw new Error("boom sk_live_abcdefghijklmnop");
      },
    };
    const outcome = await factory.tools.invoke({ name: name as unknown as string, arguments: {} });
    expect(outcome.errorCode).toBe("UNKNOWN_TOOL");
    expect(JSON.stringify(outcome)).not.toContain("sk_live");
  });

  it("an exception's secret-looking name never reaches the model", async () => {
    const world = new World();
    world.on("lookup", () => {
      throw Object.assign(new Error("x"), { name: "AKIAIOSFODNN7EXAMPLE" });
    });
    world.on("charge", () => {
      throw { name: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" };
    });
    const factory = buildFactory(world, { resilience: false, shaping: false });
    for (const [name, args] of [
      ["lookup", { id: "a" }],
      ["charge", { id: "a", amount: 1 }],
    ] as const) {
      const outcome = await factory.tools.invoke({ name, arguments: args });
      const text = JSON.stringify({ message: outcome.message, data: outcome.data });
      expect(text).not.toContain("AKIA");
      expect(text).not.toContain("ghp_");
    }
  });
});
