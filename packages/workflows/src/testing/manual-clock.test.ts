import { describe, expect, it } from "vitest";
import { checkpointOf, harness } from "../../test/agent-fixtures.js";
import { ManualClock } from "./manual-clock.js";

describe("ManualClock", () => {
  it("moves only when advanced, firing due timers in time order", () => {
    const clock = new ManualClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push("b@300"), 300);
    clock.setTimeout(() => {
      fired.push("a@100");
      clock.setTimeout(() => fired.push("c@150 (scheduled by a)"), 50);
    }, 100);
    const cancelled = clock.setTimeout(() => fired.push("never"), 200);
    clock.clearTimeout(cancelled);
    expect(clock.now()).toBe(1_000);
    clock.advance(299);
    expect(fired).toEqual(["a@100", "c@150 (scheduled by a)"]);
    expect(clock.now()).toBe(1_299);
    expect(clock.pending).toBe(1);
    clock.set(1_300);
    expect(fired).toEqual(["a@100", "c@150 (scheduled by a)", "b@300"]);
    expect(clock.pending).toBe(0);
  });

  it("sleep resolves on advance and rejects when its signal aborts", async () => {
    const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
    let woke = false;
    const nap = clock.sleep(60_000).then(() => (woke = true));
    clock.advance(59_999);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1);
    await nap;
    expect(woke).toBe(true);
    const controller = new AbortController();
    const cut = clock.sleep(1_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(cut).rejects.toThrow("stop");
    expect(clock.pending).toBe(0);
  });

  it("refuses to go backwards or advance by a bad amount", () => {
    const clock = new ManualClock(500);
    expect(() => clock.set(0)).toThrow(/cannot go backwards/);
    expect(() => clock.advance(-1)).toThrow(/0 or more/);
    expect(() => clock.advance(Number.NaN)).toThrow(/finite/);
  });

  it("serves as the agent's clock: checkpoints carry the fake time", async () => {
    const clock = new ManualClock(Date.parse("2030-05-01T12:00:00Z"));
    const { agent } = harness().agent([{ toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 1 } }] }], {
      clock: clock.now,
    });
    const paused = await agent.run("refund");
    expect(checkpointOf(paused).createdAt).toBe("2030-05-01T12:00:00.000Z");
  });
});
