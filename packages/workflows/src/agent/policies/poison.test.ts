import { describe, expect, it } from "vitest";
import { assertStatus, harness, HttpError } from "../../../test/agent-fixtures.js";
import { InMemoryDeadLetterQueue } from "@needlework/durable";

const update = (contactId: string, email = "x@example.com") => ({
  name: "updateContact",
  arguments: { contactId, email },
});

function lockedCrm(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  h.world.on("updateContact", ({ contactId }) => {
    if (contactId === "locked") throw new HttpError(409, "row lock");
    if (contactId === "gone") throw new HttpError(404, "missing");
    return { ok: true };
  });
  return h;
}

describe("poison detection", () => {
  it("ends the run dead_lettered when the same call fails with the same code poisonThreshold times across rounds", async () => {
    const deadLetters = new InMemoryDeadLetterQueue();
    const h = lockedCrm({
      redact: (value) => JSON.parse(JSON.stringify(value).replaceAll("x@example.com", "[email]")) as unknown,
    });
    const { agent, model } = h.agent(
      [
        { toolCalls: [update("locked")] },
        { toolCalls: [{ name: "updateContact", arguments: '{"email":"x@example.com","contactId":"locked"}' }] },
        { toolCalls: [update("locked")] },
        { text: "never asked" },
      ],
      {
        deadLetters,
        clock: () => Date.UTC(2025, 0, 2, 3, 4, 5),
      },
    );
    const result = await agent.run("sync", { runId: "run-p" });
    assertStatus(result, "dead_lettered");
    expect(result.reason).toMatch(/'updateContact' failed 3 times with CONFLICT for the same arguments/);
    expect(model.requests).toHaveLength(3);
    const entries = await deadLetters.list();
    expect(entries).toEqual([
      {
        id: "1",
        runId: "run-p",
        agent: "test-agent",
        tool: "updateContact",
        arguments: { contactId: "locked", email: "[email]" },
        errorCode: "CONFLICT",
        callIds: ["call_1_1", "call_2_1", "call_3_1"],
        outcomes: [
          expect.objectContaining({ status: "error", error_code: "CONFLICT" }),
          expect.anything(),
          expect.anything(),
        ],
        time: "2025-01-02T03:04:05.000Z",
        reason: "Failed 3 times with CONFLICT for the same arguments.",
      },
    ]);
    expect(agent.deadLetters).toBe(deadLetters);
  });

  it("does not treat different calls failing alike as poison", async () => {
    const { agent } = lockedCrm().agent([
      { toolCalls: [update("locked", "a@x.io"), update("locked", "b@x.io"), update("locked", "c@x.io")] },
      { text: "Three contacts are locked." },
    ]);
    const result = await agent.run("sync");
    expect(result.status).toBe("completed_with_failures");
    expect(await agent.deadLetters.list()).toEqual([]);
  });

  it("needs the same error code each time", async () => {
    let calls = 0;
    const h = harness();
    h.world.on("updateContact", () => {
      throw new HttpError(++calls === 2 ? 404 : 409, "flaky");
    });
    const { agent } = h.agent([
      { toolCalls: [update("c")] },
      { toolCalls: [update("c")] },
      { toolCalls: [update("c")] },
      { text: "c keeps failing." },
    ]);
    expect((await agent.run("sync")).status).toBe("completed_with_failures");
  });

  it("honours poisonThreshold and counts a model repeating the same invalid call", async () => {
    const bad = { name: "updateContact", arguments: { id: "nope" } };
    const { agent } = harness().agent([{ toolCalls: [bad] }, { toolCalls: [bad] }, { text: "x" }], {
      poisonThreshold: 2,
    });
    const result = await agent.run("sync");
    expect(result.status).toBe("dead_lettered");
    expect((await agent.deadLetters.list())[0]).toMatchObject({ errorCode: "INVALID_ARGUMENTS" });
  });
});
