import { ToolError } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { deferred, harness, HttpError, toolReply, untilAborted } from "../../../test/agent-fixtures.js";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("all-or-nothing rounds", () => {
  it("rolls committed siblings back through their compensate tools, exactly once, in reverse order", async () => {
    const h = harness();
    const order: string[] = [];
    const gates = { a: deferred(), b: deferred(), c: deferred() };
    h.world
      .on("debit", async ({ account, amount }) => {
        if (account === "acc3") {
          await gates.c.promise;
          throw new ToolError("Insufficient funds", { code: "INSUFFICIENT_FUNDS" });
        }
        await gates.a.promise;
        order.push("debit acc1");
        return { ok: true, account, amount };
      })
      .on("credit", async ({ account }) => {
        await gates.b.promise;
        order.push("credit acc2");
        return { ref: `r-${String(account)}` };
      })
      .on("undoDebit", (args) => (order.push(`undoDebit ${String(args.account)}`), { reversed: true }))
      .on("undoCredit", (args) => (order.push(`undoCredit ${String(args.ref)}`), { reversed: true }));
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "debit", arguments: { account: "acc1", amount: 10 } },
          { name: "credit", arguments: { account: "acc2", amount: 10 } },
          { name: "debit", arguments: { account: "acc3", amount: 5 } },
        ],
      },
      { text: "The transfer failed: acc3 has insufficient funds, and the other two changes were undone." },
    ]);
    const run = agent.run("transfer");
    await flush();
    gates.a.resolve(undefined);
    await flush();
    gates.b.resolve(undefined);
    await flush();
    gates.c.resolve(undefined);
    const result = await run;

    expect(order).toEqual(["debit acc1", "credit acc2", "undoCredit r-acc2", "undoDebit acc1"]);
    expect(h.world.callsOf("undoDebit")).toEqual([{ ok: true, account: "acc1", amount: 10 }]);
    expect(h.world.callsOf("undoCredit")).toEqual([{ account: "acc2", ref: "r-acc2" }]);
    expect(toolReply(result.messages, "call_1_1")).toMatchObject({ status: "error", error_code: "ROLLED_BACK" });
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({ status: "error", error_code: "ROLLED_BACK" });
    const failing = toolReply(result.messages, "call_1_3");
    expect(failing).toMatchObject({ status: "error", error_code: "INSUFFICIENT_FUNDS" });
    expect((failing.metadata as Record<string, unknown>).rollback).toEqual({
      rolled_back: [
        { tool: "credit", call_id: "call_1_2", compensated_by: "undoCredit" },
        { tool: "debit", call_id: "call_1_1", compensated_by: "undoDebit" },
      ],
      rollback_failed: [],
    });
    expect(result.calls.filter((c) => c.compensationFor)).toEqual([
      expect.objectContaining({
        tool: "undoCredit",
        callId: "call_1_2_undo",
        status: "ok",
        compensationFor: "call_1_2",
      }),
      expect.objectContaining({
        tool: "undoDebit",
        callId: "call_1_1_undo",
        status: "ok",
        compensationFor: "call_1_1",
      }),
    ]);
    expect(result.status).toBe("completed_with_failures");
  });

  it("reports what failed to roll back, keeping the change's data", async () => {
    const h = harness();
    h.world.on("debit", ({ account }) => {
      if (account === "bad") throw new HttpError(409, "conflict");
      return { ok: true, account, amount: 1 };
    });
    h.world.on("undoDebit", () => {
      throw new HttpError(503, "ledger down");
    });
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "audit", arguments: { line: "start" } },
          { name: "debit", arguments: { account: "acc1", amount: 1 } },
          { name: "debit", arguments: { account: "bad", amount: 1 } },
        ],
      },
      { text: "Two changes remain after the failed transfer." },
    ]);
    const result = await agent.run("transfer");
    const rollback = (toolReply(result.messages, "call_1_3").metadata as { rollback: unknown }).rollback;
    expect(rollback).toEqual({
      rolled_back: [],
      rollback_failed: [
        { tool: "debit", call_id: "call_1_2", error_code: "UPSTREAM_UNAVAILABLE" },
        { tool: "audit", call_id: "call_1_1", error_code: "NO_COMPENSATE_TOOL" },
      ],
    });
    expect(toolReply(result.messages, "call_1_1")).toMatchObject({
      error_code: "ROLLBACK_FAILED",
      data: { ok: true, line: "start" },
    });
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({
      error_code: "ROLLBACK_FAILED",
      message: expect.stringContaining("still in place"),
    });
    expect(h.world.callsOf("undoDebit")).toHaveLength(1);
  });

  it("does not start calls after a failure, and rolls nothing back when every call succeeds", async () => {
    const h = harness();
    h.world.on("debit", () => {
      throw new ToolError("Frozen", { code: "ACCOUNT_FROZEN" });
    });
    const { agent } = h.agent(
      [
        {
          toolCalls: [
            { name: "debit", arguments: { account: "a", amount: 1 } },
            { name: "credit", arguments: { account: "b", amount: 1 } },
          ],
        },
        {
          toolCalls: [
            { name: "credit", arguments: { account: "b", amount: 1 } },
            { name: "audit", arguments: { line: "x" } },
          ],
        },
        { text: "The debit failed because the account is frozen." },
      ],
      { maxConcurrency: 1 },
    );
    const result = await agent.run("transfer");
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({
      status: "skipped",
      error_code: "SKIPPED_SIBLING_FAILED",
    });
    expect(h.world.callsOf("credit")).toHaveLength(1); // only the second round's
    expect(result.calls.filter((c) => c.round === 2).map((c) => c.status)).toEqual(["ok", "ok"]);
    expect(h.world.callsOf("undoCredit")).toHaveLength(0);
  });
});

describe("fail-fast rounds", () => {
  it("aborts in-flight siblings through their signal and records them cancelled, not error", async () => {
    const h = harness();
    let siblingSignal: AbortSignal | undefined;
    const fail = deferred();
    h.world.on("searchA", async () => {
      await fail.promise;
      throw new HttpError(500, "index A exploded");
    });
    h.world.on("searchB", (_args, ctx) => {
      siblingSignal = ctx.signal;
      return untilAborted(ctx.signal);
    });
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "searchA", arguments: { q: "x" } },
          { name: "searchB", arguments: { q: "x" } },
        ],
      },
      { text: "Search failed; please try later." },
    ]);
    const run = agent.run("search");
    await flush();
    fail.resolve(undefined);
    const result = await run;
    expect(siblingSignal?.aborted).toBe(true);
    expect(result.calls.map((c) => [c.status, c.errorCode])).toEqual([
      ["error", "UPSTREAM_ERROR"],
      ["cancelled", "CANCELLED_SIBLING_FAILED"],
    ]);
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({
      status: "cancelled",
      message: expect.stringContaining("may have partly run"),
    });
    expect(result.status).toBe("completed_with_failures");
  });

  it("applies per tool group: a fail-fast failure does not cancel the agent's best-effort calls", async () => {
    const h = harness();
    const note = deferred();
    h.world.on("searchA", () => {
      throw new HttpError(500, "boom");
    });
    h.world.on("postNote", async () => (await note.promise, { noted: true }));
    h.world.on("searchB", (_a, ctx) => untilAborted(ctx.signal));
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "postNote", arguments: { note: "n" } },
          { name: "searchB", arguments: { q: "q" } },
          { name: "searchA", arguments: { q: "q" } },
        ],
      },
      { text: "The search failed; the note was posted." },
    ]);
    const run = agent.run("go");
    await flush();
    note.resolve(undefined);
    const result = await run;
    expect(result.calls.map((c) => c.status)).toEqual(["ok", "cancelled", "error"]);
  });

  it("as the agent's policy, skips siblings that had not started", async () => {
    const h = harness();
    h.world.on("updateContact", ({ contactId }) => {
      if (contactId === "c1") throw new HttpError(403, "no");
      return { ok: true };
    });
    const { agent } = h.agent(
      [
        { toolCalls: ["c1", "c2", "c3"].map((contactId) => ({ name: "updateContact", arguments: { contactId } })) },
        { text: "c1 is forbidden; c2 and c3 were not attempted." },
      ],
      { roundPolicy: "fail-fast", maxConcurrency: 1 },
    );
    const result = await agent.run("sync");
    expect(h.world.callsOf("updateContact")).toHaveLength(1);
    expect(result.calls.map((c) => c.errorCode)).toEqual([
      "FORBIDDEN",
      "SKIPPED_SIBLING_FAILED",
      "SKIPPED_SIBLING_FAILED",
    ]);
    expect(result.calls.map((c) => c.notCalled)).toEqual([false, true, true]);
  });

  it("a group policy overrides the agent's: ledger tools stay all-or-nothing under a fail-fast agent", async () => {
    const h = harness();
    h.world.on("debit", ({ account }) => {
      if (account === "bad") throw new ToolError("Frozen", { code: "ACCOUNT_FROZEN" });
      return { ok: true, account, amount: 1 };
    });
    const { agent } = h.agent(
      [
        {
          toolCalls: [
            { name: "debit", arguments: { account: "good", amount: 1 } },
            { name: "debit", arguments: { account: "bad", amount: 1 } },
          ],
        },
        { text: "Frozen account; nothing changed." },
      ],
      { roundPolicy: "fail-fast" },
    );
    const result = await agent.run("go");
    expect(h.world.callsOf("undoDebit")).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ status: "error", errorCode: "ROLLED_BACK" });
  });
});

describe("dependsOn", () => {
  it("runs dependencies before dependents, whatever order the model listed them in", async () => {
    const h = harness();
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "addToAccount", arguments: { contactId: "c1" } },
          { name: "createAccount", arguments: { name: "Acme" } },
        ],
      },
      { text: "Acme now has c1." },
    ]);
    const result = await agent.run("go");
    expect(h.world.log.map((e) => e.tool)).toEqual(["createAccount", "addToAccount"]);
    expect(result.status).toBe("completed");
  });

  it("skips a call whose dependency failed in the same round, with SKIPPED_DEPENDENCY_FAILED, and never runs it", async () => {
    const h = harness();
    h.world.on("createAccount", () => {
      throw new HttpError(409, "dup");
    });
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "createAccount", arguments: { name: "Acme" } },
          { name: "addToAccount", arguments: { contactId: "c1" } },
        ],
      },
      { text: "Creating Acme failed, so c1 was not added." },
    ]);
    const result = await agent.run("go");
    expect(h.world.callsOf("addToAccount")).toHaveLength(0);
    const skipped = toolReply(result.messages, "call_1_2");
    expect(skipped).toMatchObject({
      status: "skipped",
      error_code: "SKIPPED_DEPENDENCY_FAILED",
      message: expect.stringMatching(/^Not called: .*'createAccount' \(call_1_1\)/),
    });
    expect(result.calls[1]).toMatchObject({ status: "skipped", attempts: 0, notCalled: true });
  });

  it("runs a dependent alone when its dependency is not in the round", async () => {
    const h = harness();
    const { agent } = h.agent([
      { toolCalls: [{ name: "addToAccount", arguments: { contactId: "c1" } }] },
      { text: "Added." },
    ]);
    expect((await agent.run("go")).calls[0]?.status).toBe("ok");
  });
});
