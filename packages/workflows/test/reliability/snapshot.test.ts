import { formatToolOutcome } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { buildFactory, World } from "./reliability-fixtures.js";

describe("what the model reads is the snapshot taken when the call settles", () => {
  it("a secret filled in after settle, boxed primitives, getters and toJSON never bypass redaction", async () => {
    const world = new World();
    const returned: Record<string, unknown> = { id: "a" };
    let reads = 0;
    world.on("lookup", () => ({
      returned,
      note: new String("password=hunter2 AKIAIOSFODNN7EXAMPLE"),
      card: new Number(4111111111111111),
      get late() {
        return reads++ === 0 ? "fine" : "Bearer abcdefghijklmnopqrstuvwxyz0123456789";
      },
    }));
    const factory = buildFactory(world);
    const outcome = await factory.tools.invoke({ name: "lookup", arguments: { id: "a" } });
    returned.auth = "Bearer abcdefghijklmnopqrstuvwxyz0123456789";
    const text = formatToolOutcome(outcome);
    for (const secret of ["hunter2", "AKIAIOSFODNN7EXAMPLE", "4111111111111111", "Bearer"])
      expect(text).not.toContain(secret);
    expect(outcome.data).toMatchObject({ returned: { id: "a" }, late: "fine" });
  });

  it("60 boxed numbers count against the token budget", async () => {
    const world = new World();
    world.on("lookup", () => ({ values: Array.from({ length: 60 }, (_, i) => new Number(1_000_000_000 + i)) }));
    const factory = buildFactory(world);
    const outcome = await factory.tools.invoke({ name: "lookup", arguments: { id: "a" } });
    expect(JSON.stringify(outcome.data)).not.toContain("{}");
    expect((outcome.data as { values: unknown[] }).values[0]).toBe(1_000_000_000);
  });
});

describe("small redaction cases", () => {
  it("NaN adds no REDACTED flag; a negative card number stored as a number is redacted", async () => {
    const world = new World();
    world.on("lookup", () => ({ ratio: Number.NaN, n: Number.NaN }));
    world.on("charge", () => ({ card: -4111111111111111 }));
    const factory = buildFactory(world);
    const nan = await factory.tools.invoke({ name: "lookup", arguments: { id: "a" } });
    expect(nan.metadata.flags ?? []).not.toContain("REDACTED");
    const card = await factory.tools.invoke({ name: "charge", arguments: { id: "a", amount: 1 } });
    expect(JSON.stringify(card.data)).not.toContain("4111111111111111");
  });
});
