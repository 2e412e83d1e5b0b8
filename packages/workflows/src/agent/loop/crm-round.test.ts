import { describe, expect, it } from "vitest";
import { harness, HttpError, RAW_403, toolReply } from "../../../test/agent-fixtures.js";
import type { ScriptedStep } from "@needlework/core";

// The guide's Harbor Integrations round: five parallel contact writes, three rejected with 403.
const contacts = ["c1", "c2", "c3", "c4", "c5"];
const syncRound: ScriptedStep = {
  toolCalls: contacts.map((contactId) => ({
    name: "updateContact",
    arguments: { contactId, email: `${contactId}@harbor.example` },
  })),
};

function crm() {
  const h = harness();
  h.world.on("updateContact", ({ contactId }) => {
    if (["c2", "c4", "c5"].includes(contactId as string)) throw new HttpError(403, RAW_403);
    return { contactId, updated: true };
  });
  return h;
}

describe("the CRM sync round of the guide", () => {
  it("a model answering 'Sync complete.' twice ends escalated, and the raw error text never reaches it", async () => {
    const { agent, model } = crm().agent([syncRound, { text: "Sync complete." }, { text: "Sync complete." }]);
    const result = await agent.run("Sync the five contacts to Salesforce.");

    expect(result.status).toBe("escalated");
    expect(result.silentFailure).toBe(false);
    expect(result.health).toEqual({ tools_ok: 2, tools_failed: 3, tools_not_called: 0, blocking_failure: true });
    for (const id of ["call_1_2", "call_1_4", "call_1_5"]) {
      expect(toolReply(result.messages, id)).toMatchObject({
        status: "error",
        error_code: "FORBIDDEN",
        retriable: false,
        message: "Permission denied by the upstream service (HTTP 403).",
      });
    }
    const seenByModel = JSON.stringify(model.requests.map((r) => r.messages));
    for (const secret of ["java.lang", "sk_live", "SalesforceClient", "SecurityException"])
      expect(seenByModel).not.toContain(secret);
    expect(seenByModel).toContain("3 tools failed; you must not claim full success.");
    expect(model.requests[2]!.messages.at(-1)).toMatchObject({ kind: "correction" });
  });

  it("a model stating the three failures ends completed_with_failures", async () => {
    const { agent } = crm().agent([
      syncRound,
      {
        text: "2 of 5 contacts were updated (c1, c3). c2, c4 and c5 failed with FORBIDDEN: the integration lacks permission for them.",
      },
    ]);
    const result = await agent.run("Sync the five contacts to Salesforce.");
    expect(result).toMatchObject({ status: "completed_with_failures", silentFailure: false, iterations: 2 });
    expect(result.calls.map((c) => c.status)).toEqual(["ok", "error", "ok", "error", "error"]);
  });

  it("without the guardrail the same answer is the guide's silent failure", async () => {
    const { agent } = crm().agent([syncRound, { text: "Sync complete." }], { guardrail: false });
    expect(await agent.run("Sync.")).toMatchObject({ status: "completed_with_failures", silentFailure: true });
  });
});
