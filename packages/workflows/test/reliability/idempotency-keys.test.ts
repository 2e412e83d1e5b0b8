import { describe, expect, it } from "vitest";
import { harness } from "../agent-fixtures.js";

describe("a repeated call reuses the first call's idempotencyKey", () => {
  it("the same tool with the same arguments (in any key order) gets the same key in a run; other calls get their own", async () => {
    const h = harness();
    const keys: { args: unknown; key: string }[] = [];
    h.world.on("updateContact", (args, ctx) => {
      keys.push({ args, key: ctx.idempotencyKey });
      return { ok: true };
    });
    const { agent } = h.agent(
      [
        { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1", email: "a@x.io" } }] },
        { toolCalls: [{ name: "updateContact", arguments: '{"email":"a@x.io","contactId":"c1"}' }] },
        { toolCalls: [{ name: "updateContact", arguments: { contactId: "c2" } }] },
        { text: "Done." },
      ],
      { stallThreshold: false },
    );
    await agent.run("sync", { runId: "run-k" });
    expect(keys).toHaveLength(3);
    expect(keys[1]!.key).toBe(keys[0]!.key);
    expect(keys[0]!.key).toMatch(/^run-k:/);
    expect(keys[2]!.key).not.toBe(keys[0]!.key);
  });
});
