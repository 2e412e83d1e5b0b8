import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assertStatus, harness, HttpError } from "../../../test/agent-fixtures.js";

const finalAnswer = {
  schema: z.object({ sync_status: z.enum(["complete", "partial", "failed"]), summary: z.string() }),
  statusField: "sync_status",
};
const update = (contactId: string) => ({ name: "updateContact", arguments: { contactId } });
const answer = (value: unknown) => ({ text: JSON.stringify(value) });

function failingC2() {
  const h = harness();
  h.world.on("updateContact", ({ contactId }) => {
    if (contactId === "c2") throw new HttpError(403, "denied");
    return { updated: contactId };
  });
  return h;
}

describe("structured final answers", () => {
  it("accepts a matching answer and returns it parsed", async () => {
    const { agent } = harness().agent(
      [{ toolCalls: [update("c1")] }, { text: '```json\n{"sync_status":"complete","summary":"c1 updated"}\n```' }],
      { finalAnswer },
    );
    const result = await agent.run("sync");
    expect(result).toMatchObject({ status: "completed", output: { sync_status: "complete", summary: "c1 updated" } });
  });

  it("checks the status against the outcomes: one self-correction turn, then the corrected answer is accepted", async () => {
    const { agent, model } = failingC2().agent(
      [
        { toolCalls: [update("c1"), update("c2")] },
        answer({ sync_status: "complete", summary: "done" }),
        answer({ sync_status: "partial", summary: "c2 forbidden" }),
      ],
      { finalAnswer },
    );
    const result = await agent.run("sync");
    expect(result).toMatchObject({ status: "completed_with_failures", output: { sync_status: "partial" } });
    const correction = model.requests[2]!.messages.at(-1);
    expect(correction).toMatchObject({ role: "user", kind: "correction" });
    expect((correction as { content: string }).content).toContain(
      '"sync_status" is "complete" while 1 tool call has not succeeded',
    );
    expect((correction as { content: string }).content).toContain('("partial" or "failed")');
  });

  it("escalates with the reason when the status still contradicts the outcomes", async () => {
    const { agent } = failingC2().agent(
      [
        { toolCalls: [update("c2")] },
        answer({ sync_status: "complete", summary: "x" }),
        answer({ sync_status: "complete", summary: "x" }),
      ],
      { finalAnswer },
    );
    const result = await agent.run("sync");
    assertStatus(result, "escalated");
    expect(result.reason).toBe(
      'After one correction turn, "sync_status" is "complete" while 1 tool call has not succeeded.',
    );
    expect(result).not.toHaveProperty("output");
  });

  it("escalates after invalid JSON twice", async () => {
    const { agent, model } = harness().agent([{ text: "Everything is fine." }, { text: "Still fine." }], {
      finalAnswer,
    });
    const result = await agent.run("sync");
    expect(result).toMatchObject({
      status: "escalated",
      reason: "After one correction turn, the final answer is not valid JSON.",
    });
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      kind: "correction",
      content: expect.stringContaining("not valid JSON"),
    });
  });

  it("names the schema problem", async () => {
    const { agent } = harness().agent([answer({ sync_status: "great" }), answer({ sync_status: "great" })], {
      finalAnswer,
    });
    const result = await agent.run("sync");
    assertStatus(result, "escalated");
    expect(result.reason).toMatch(/does not match the schema \(sync_status: .*; summary: /);
  });

  it("takes the success values from the options", async () => {
    const schema = z.object({ state: z.enum(["green", "amber", "red"]) });
    const { agent } = failingC2().agent(
      [{ toolCalls: [update("c2")] }, answer({ state: "green" }), answer({ state: "green" })],
      { finalAnswer: { schema, statusField: "state", successValues: ["green"] } },
    );
    expect((await agent.run("sync")).status).toBe("escalated");
  });
});
