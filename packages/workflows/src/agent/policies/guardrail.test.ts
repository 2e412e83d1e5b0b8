import { describe, expect, it } from "vitest";
import { assertStatus, harness, HttpError } from "../../../test/agent-fixtures.js";
import type { ChatMessage } from "@needlework/core";

const runtimeNotes = (messages: readonly ChatMessage[], kind: "run_health" | "correction") =>
  messages
    .filter((m): m is Extract<ChatMessage, { role: "user" }> => m.role === "user" && m.kind === kind)
    .map((m) => m.content);

/** A harness whose updateContact fails with 403 for the listed contacts (until `fixed`). */
function forbidding(...ids: string[]) {
  const h = harness();
  const blocked = new Set(ids);
  h.world.on("updateContact", ({ contactId }) => {
    if (blocked.has(contactId as string)) throw new HttpError(403, "denied");
    return { updated: contactId };
  });
  return { ...h, fix: (id: string) => blocked.delete(id) };
}

const update = (contactId: string) => ({ name: "updateContact", arguments: { contactId } });

describe("run_health", () => {
  it("follows a failing round with the health block and a one-line reminder", async () => {
    const { agent } = forbidding("c2", "c3").agent([
      { toolCalls: [update("c1"), update("c2"), update("c3")] },
      { text: "c2 and c3 could not be updated (forbidden); c1 was." },
    ]);
    const result = await agent.run("sync");
    expect(result.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
      "user",
      "assistant",
    ]);
    expect(runtimeNotes(result.messages, "run_health")).toEqual([
      'run_health {"tools_ok":1,"tools_failed":2,"tools_not_called":0,"blocking_failure":true}\n2 tools failed; you must not claim full success.',
    ]);
  });

  it("tells 'not called' apart from 'failed'", async () => {
    const h = harness();
    h.world.on("createAccount", () => {
      throw new HttpError(409, "dup");
    });
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "createAccount", arguments: { name: "A" } },
          { name: "addToAccount", arguments: { contactId: "c" } },
        ],
      },
      { text: "Account creation failed." },
    ]);
    const result = await agent.run("go");
    expect(runtimeNotes(result.messages, "run_health")[0]).toBe(
      'run_health {"tools_ok":0,"tools_failed":1,"tools_not_called":1,"blocking_failure":true}\n1 tool failed and 1 tool was not called; you must not claim full success.',
    );
    expect(result.health).toEqual({ tools_ok: 0, tools_failed: 1, tools_not_called: 1, blocking_failure: true });
  });

  it("adds nothing after a round without failures", async () => {
    const { agent } = harness().agent([{ toolCalls: [update("c1")] }, { text: "Updated." }]);
    expect(runtimeNotes((await agent.run("go")).messages, "run_health")).toEqual([]);
  });
});

describe("blocking failures and recovery", () => {
  it("a later success of the same tool with equal arguments clears the failure: the run completes, with steps-to-recovery", async () => {
    const h = forbidding("c2");
    const { agent } = h.agent([
      { toolCalls: [update("c1"), update("c2")] },
      (request) => {
        h.fix("c2");
        expect(request.messages.at(-1)).toMatchObject({ kind: "run_health" });
        return { toolCalls: [{ name: "updateContact", arguments: '{ "contactId": "c2" }' }] };
      },
      { text: "Both contacts were updated successfully." },
    ]);
    const result = await agent.run("sync");
    expect(result).toMatchObject({ status: "completed", silentFailure: false, stepsToRecovery: 1 });
    expect(result.recoveries).toEqual([
      { tool: "updateContact", failedCallId: "call_1_2", recoveredCallId: "call_2_1", steps: 1 },
    ]);
    expect(result.health.blocking_failure).toBe(false);
  });

  it("counts steps from the first failure of a series", async () => {
    const h = forbidding("c1");
    const { agent } = h.agent([
      { toolCalls: [update("c1")] },
      { toolCalls: [update("c1")] },
      () => (h.fix("c1"), { toolCalls: [update("c1")] }),
      { text: "Updated successfully." },
    ]);
    const result = await agent.run("sync");
    expect(result.recoveries).toEqual([
      expect.objectContaining({ failedCallId: "call_1_1", recoveredCallId: "call_3_1", steps: 2 }),
    ]);
    expect(result.stepsToRecovery).toBe(2);
  });

  it("a success with other arguments does not clear it", async () => {
    const { agent } = forbidding("c2").agent([
      { toolCalls: [update("c2")] },
      { toolCalls: [update("c9")] },
      { text: "c2 was forbidden; c9 was updated instead." },
    ]);
    const result = await agent.run("sync");
    expect(result.status).toBe("completed_with_failures");
    expect(result.stepsToRecovery).toBeUndefined();
  });
});

describe("the success-claim guardrail", () => {
  it("rejects a success claim once with a correction turn, then escalates", async () => {
    const { agent, model } = forbidding("c2").agent([
      { toolCalls: [update("c1"), { ...update("c2") }] },
      { text: "All done!" },
      { text: "Sync complete." },
    ]);
    const result = await agent.run("sync");
    assertStatus(result, "escalated");
    expect(result.reason).toMatch(
      /^After one correction turn, the final answer claims success while 1 tool call had not succeeded \(updateContact: FORBIDDEN\)/,
    );
    expect(result.text).toBe("Sync complete.");
    expect(result.silentFailure).toBe(false);
    const correction = runtimeNotes(model.requests[2]!.messages, "correction");
    expect(correction).toHaveLength(1);
    expect(correction[0]).toContain("- updateContact (call_1_2): FORBIDDEN, failed");
    expect(correction[0]).toContain("do not describe the work as complete or successful");
  });

  it("accepts the corrected answer that states the failures: completed_with_failures", async () => {
    const { agent } = forbidding("c2").agent([
      { toolCalls: [update("c1"), update("c2")] },
      { text: "Sync complete." },
      { text: "c1 was updated; c2 failed: permission denied (FORBIDDEN)." },
    ]);
    const result = await agent.run("sync");
    expect(result).toMatchObject({ status: "completed_with_failures", silentFailure: false, iterations: 3 });
  });

  it("does not check claims when nothing is blocking", async () => {
    const { agent } = harness().agent([{ toolCalls: [update("c1")] }, { text: "Sync completed successfully." }]);
    expect((await agent.run("sync")).status).toBe("completed");
  });

  it("takes a custom detector", async () => {
    const { agent } = forbidding("c1").agent(
      [{ toolCalls: [update("c1")] }, { text: "Synced." }, { text: "Synced!" }],
      { guardrail: (text) => /\bsynced\b/i.test(text) },
    );
    expect((await agent.run("sync")).status).toBe("escalated");
  });

  it("turned off, lets the claim through and measures it as a silent failure", async () => {
    const { agent } = forbidding("c1").agent([{ toolCalls: [update("c1")] }, { text: "Sync complete." }], {
      guardrail: false,
    });
    const result = await agent.run("sync");
    expect(result).toMatchObject({ status: "completed_with_failures", silentFailure: true });
  });

  it("tells the model which calls were not called in its correction", async () => {
    const h = harness();
    h.world.on("createAccount", () => {
      throw new HttpError(409, "dup");
    });
    const { agent, model } = h.agent([
      {
        toolCalls: [
          { name: "createAccount", arguments: { name: "A" } },
          { name: "addToAccount", arguments: { contactId: "c" } },
        ],
      },
      { text: "Success." },
      { text: "Account A already exists, so c was not added." },
    ]);
    await agent.run("go");
    expect(runtimeNotes(model.requests[2]!.messages, "correction")[0]).toContain(
      "- addToAccount (call_1_2): SKIPPED_DEPENDENCY_FAILED, not called",
    );
  });
});
