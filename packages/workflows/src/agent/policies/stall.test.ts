import { describe, expect, it } from "vitest";
import { assertStatus, harness, HttpError } from "../../../test/agent-fixtures.js";
import type { ScriptedStep } from "@needlework/core";

const lookup = (orderId: string) => ({ name: "lookupOrder", arguments: { orderId } });
const repeat = (step: ScriptedStep, times: number): ScriptedStep[] => Array.from({ length: times }, () => step);

describe("stall detection", () => {
  it("ends the run stalled after 3 identical rounds (same calls, arguments and outcomes), naming the repeated calls", async () => {
    const h = harness();
    h.world.on("lookupOrder", () => ({ status: "pending" }));
    const { agent, model } = h.agent([
      ...repeat({ toolCalls: [lookup("o1"), { name: "postNote", arguments: '{"note":"still waiting"}' }] }, 5),
    ]);
    const result = await agent.run("wait for o1");
    assertStatus(result, "stalled");
    expect(model.requests).toHaveLength(3);
    expect(result.reason).toBe(
      "The same round repeated 3 times in a row with the same outcomes (stallThreshold 3): lookupOrder({orderId}) -> ok; postNote({note}) -> ok. The model was making no progress; the run was stopped.",
    );
  });

  it("does not count rounds whose outcomes change: the model is learning something", async () => {
    const h = harness();
    let n = 0;
    h.world.on("lookupOrder", () => ({ status: ++n < 4 ? "pending" : "shipped", check: n }));
    const { agent } = h.agent([...repeat({ toolCalls: [lookup("o1")] }, 4), { text: "o1 has shipped." }]);
    expect((await agent.run("wait for o1")).status).toBe("completed");
  });

  it("compares rounds as sets: the order of the calls and their argument key order do not matter", async () => {
    const { agent } = harness().agent([
      { toolCalls: [lookup("o1"), lookup("o2")] },
      { toolCalls: [lookup("o2"), { name: "lookupOrder", arguments: '{ "orderId": "o1" }' }] },
      { toolCalls: [lookup("o1"), lookup("o2")] },
      { text: "never reached" },
    ]);
    expect((await agent.run("x")).status).toBe("stalled");
  });

  it("a text turn breaks the series; stallThreshold sets the count and false turns detection off", async () => {
    const h = harness();
    h.world.on("updateContact", () => {
      throw new HttpError(403, "forbidden");
    });
    const round = { toolCalls: [lookup("o1")] };
    const failing = { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] };
    const broken = h.agent([
      failing,
      round,
      round,
      { text: "All done successfully." },
      round,
      round,
      { text: "c1 failed; o1 is pending." },
    ]);
    // Two rounds, an answer (corrected: c1 failed), two more: never three in a row.
    const result = await broken.agent.run("x");
    expect(result.status).toBe("completed_with_failures");
    expect(result.iterations).toBe(7);

    expect((await h.agent([round, round, { text: "never" }], { stallThreshold: 2 }).agent.run("x")).status).toBe(
      "stalled",
    );
    const off = h.agent([...repeat(round, 5), { text: "o1 is pending." }], { stallThreshold: false });
    expect((await off.agent.run("x")).status).toBe("completed");
    expect(() => h.agent([], { stallThreshold: 0 })).toThrow(
      "createAgent: option 'stallThreshold' must be an integer of at least 1 (got 0).",
    );
    expect(() => h.agent([], { stallThreshold: true as never })).toThrow(
      "createAgent: option 'stallThreshold' must be an integer of at least 1, or false (got true).",
    );
  });

  it("the same call failing the same way is poison first (dead_lettered with a dead-letter entry), not a stall", async () => {
    const h = harness();
    h.world.on("updateContact", () => {
      throw new HttpError(403, "forbidden");
    });
    const { agent } = h.agent(repeat({ toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] }, 4));
    const result = await agent.run("x");
    expect(result.status).toBe("dead_lettered");
    expect(await agent.deadLetters.list()).toHaveLength(1);
  });
});
