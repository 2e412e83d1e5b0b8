import { afterEach, describe, expect, it, vi } from "vitest";
import { invalidOption } from "../../../test/invalid-option.js";
import { container } from "tsyringe";
import {
  assertStatus,
  CrmTools,
  deferred,
  harness,
  HttpError,
  ToolWorld,
  toolReply,
} from "../../../test/agent-fixtures.js";
import { usingAgentFramework } from "../../builder/index.js";
import { ScriptedChatClient } from "@needlework/core";
import type { ChatMessage, ChatRequest } from "@needlework/core";
import { TOKEN_BUDGET_DEFAULTS } from "./budgets.js";
import { heldTimers, useFakeTimers } from "../../../test/support/fake-timers.js";

const usage = (totalTokens: number) => ({ inputTokens: totalTokens, outputTokens: 0, totalTokens });
const note = (n: number) => ({ name: "postNote", arguments: { note: `n${n}` } });
const budgetNotes = (messages: readonly ChatMessage[]) =>
  messages.filter((m) => m.role === "user" && m.kind === "budget").map((m) => m.content);
const offeredCount = (request: ChatRequest | undefined) => request?.tools.length ?? -1;

afterEach(() => {
  vi.useRealTimers();
});

describe("maxTotalToolCalls", () => {
  it("runs calls up to the limit, skips the rest as not called, withdraws the tools and asks for the answer", async () => {
    const h = harness();
    const { agent, model } = h.agent(
      [
        { toolCalls: [note(1), note(2)] },
        { toolCalls: [note(3), note(4)] },
        { text: "I posted three notes; the fourth was not posted." },
      ],
      { maxTotalToolCalls: 3 },
    );
    const result = await agent.run("post four notes");
    expect(h.world.callsOf("postNote").map((a) => a.note)).toEqual(["n1", "n2", "n3"]);
    expect(result.calls.map((c) => [c.status, c.errorCode])).toEqual([
      ["ok", undefined],
      ["ok", undefined],
      ["ok", undefined],
      ["skipped", "TOOL_CALL_LIMIT_REACHED"],
    ]);
    expect(toolReply(result.messages, "call_2_2")).toMatchObject({
      status: "skipped",
      message: expect.stringMatching(/at most 3 tool calls/),
    });
    expect(offeredCount(model.requests[1])).toBeGreaterThan(0);
    expect(offeredCount(model.requests[2])).toBe(0);
    expect(budgetNotes(model.requests[2]!.messages)).toEqual([
      'budget {"tool_calls":3,"max_tool_calls":3}\nNo more tool calls: the run has made 3 tool calls (maxTotalToolCalls 3). Write your final answer now from the results you have, and say what was not done.',
    ]);
    expect(result.status).toBe("completed_with_failures");
    expect(result.health).toMatchObject({ tools_ok: 3, tools_not_called: 1 });
  });

  it("ends the run budget_exhausted when the model calls tools after they were withdrawn; those calls never run", async () => {
    const h = harness();
    const { agent } = h.agent([{ toolCalls: [note(1)] }, { toolCalls: [note(2)] }], { maxTotalToolCalls: 1 });
    const result = await agent.run("go");
    assertStatus(result, "budget_exhausted");
    expect(result.reason).toBe(
      "The model called tools after they were withdrawn because the run has made 1 tool call (maxTotalToolCalls 1); 1 tool call of the last turn was not run.",
    );
    expect(h.world.log).toHaveLength(1);
    expect(result.calls[1]).toMatchObject({ status: "skipped", errorCode: "TOOLS_WITHDRAWN", notCalled: true });
    // Every assistant tool call has its tool message: the conversation stays well formed.
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_2_1" });
  });

  it("never puts calls beyond the limit to a reviewer, and a resumed round keeps the same limit", async () => {
    const h = harness();
    const { agent } = h.agent(
      [
        {
          toolCalls: [
            { name: "refund", arguments: { orderId: "o1", amount: 5 } },
            { name: "lookupOrder", arguments: { orderId: "o1" } },
          ],
        },
        { text: "Refunded o1; the lookup was not done." },
      ],
      { maxTotalToolCalls: 1, checkpointSecret: "s".repeat(32) },
    );
    const paused = await agent.run("refund o1");
    assertStatus(paused, "awaiting_approval");
    expect(paused.pendingApprovals.map((p) => p.tool)).toEqual(["refund"]);
    const result = await agent.resume(paused.checkpoint, { call_1_1: "approved" });
    expect(h.world.log.map((l) => l.tool)).toEqual(["refund"]);
    expect(result.calls.map((c) => [c.tool, c.errorCode])).toEqual([
      ["refund", undefined],
      ["lookupOrder", "TOOL_CALL_LIMIT_REACHED"],
    ]);
  });
});

describe("maxToolRoundsPerIteration", () => {
  it("after N rounds without an answer the model gets no tools and is told to answer; an answer starts a new iteration", async () => {
    const h = harness();
    h.world.on("updateContact", () => {
      throw new HttpError(403, "forbidden");
    });
    const { agent, model } = h.agent(
      [
        { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
        { toolCalls: [note(1)] },
        { text: "All done successfully." }, // corrected: c1 failed
        { toolCalls: [note(2)] }, // a new iteration: tools are offered again
        { text: "c1 could not be updated (forbidden); notes were posted." },
      ],
      { maxToolRoundsPerIteration: 2 },
    );
    const result = await agent.run("update c1 and post notes");
    expect(model.requests.map(offeredCount).map((n) => n > 0)).toEqual([true, true, false, true, true]);
    expect(budgetNotes(model.requests[2]!.messages)).toEqual([
      expect.stringContaining("the model ran 2 tool rounds without answering (maxToolRoundsPerIteration 2)"),
    ]);
    expect(result.status).toBe("completed_with_failures");
    expect(h.world.callsOf("postNote")).toHaveLength(2);
  });
});

describe("tokenBudget", () => {
  it("pins its defaults and checks its options", () => {
    expect(TOKEN_BUDGET_DEFAULTS).toEqual({ pressureThreshold: 0.8 });
    const make = (tokenBudget: unknown) => () => harness().agent([], { tokenBudget: tokenBudget as never });
    expect(make({ maxTokens: 0 })).toThrow(
      "createAgent: option 'tokenBudget.maxTokens' must be an integer of at least 1 (got 0).",
    );
    expect(invalidOption(make({ maxTokens: 100, pressureThreshold: 1 }))).toMatchObject({
      code: "INVALID_OPTION",
      option: "tokenBudget.pressureThreshold",
      value: 1,
    });
    expect(make({ maxTokens: 100, pressureThreshold: 0 })).toThrow(
      /'tokenBudget\.pressureThreshold' must be a share of maxTokens above 0 and below 1/,
    );
    expect(make({ maxTokens: 100, threshold: 0.5 })).toThrow(
      "createAgent: unknown option 'tokenBudget.threshold'. Known options: maxTokens, pressureThreshold.",
    );
    expect(make(100)).toThrow(/option 'tokenBudget' must be \{ maxTokens, pressureThreshold\? \} \(got 100\)/);
  });

  it("tells the model once to wrap up when usage crosses the pressure threshold", async () => {
    const { agent, model } = harness().agent(
      [
        { toolCalls: [note(1)], usage: usage(500) },
        { toolCalls: [note(2)], usage: usage(350) }, // 850 >= 800
        { toolCalls: [note(3)], usage: usage(50) },
        { text: "Posted three notes.", usage: usage(50) },
      ],
      { tokenBudget: { maxTokens: 1_000 } },
    );
    const result = await agent.run("post notes");
    expect(budgetNotes(model.requests[1]!.messages)).toEqual([]);
    expect(budgetNotes(model.requests[2]!.messages)).toEqual([
      'budget {"tokens_used":850,"max_tokens":1000}\nThis run has used 85% of its token budget. Wrap up: call a tool only if the answer cannot be given without it, then write your final answer, saying what was not done.',
    ]);
    expect(budgetNotes(result.messages)).toHaveLength(1);
    expect(result.status).toBe("completed");
    expect(result.usage.totalTokens).toBe(950);
  });

  it("ends budget_exhausted when a turn spends the budget: its calls never start, nothing in flight is cut off, nothing is retried", async () => {
    useFakeTimers();
    const signals: AbortSignal[] = [];
    // The note takes as long as the test says: it is in flight until `posted` resolves.
    const started = deferred();
    const posted = deferred();
    const world = new ToolWorld().on("postNote", async (args, ctx) => {
      signals.push(ctx.signal);
      started.resolve(undefined);
      await posted.promise;
      return { posted: args.note };
    });
    const child = container.createChildContainer();
    child.register(ToolWorld, { useValue: world });
    // Resilience as a user adds it: through the builder, inside the tool-result middleware.
    const factory = usingAgentFramework(child)
      .addAgentFunctions(CrmTools)
      .usingResilience({ retry: { maxAttempts: 3 } })
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });
    const agent = factory.createAgent({
      name: "test-agent",
      instructions: "You are a test agent.",
      chatClient: new ScriptedChatClient([
        { toolCalls: [note(1)], usage: usage(600) },
        { toolCalls: [note(2), note(3)], usage: usage(500) },
      ]),
      tokenBudget: { maxTokens: 1_000 },
    });
    const run = agent.run("post notes");
    await started.promise;
    posted.resolve(undefined);
    const result = await run;
    assertStatus(result, "budget_exhausted");
    expect(result.reason).toBe(
      "The run used 1100 tokens of its budget of 1000 (tokenBudget.maxTokens); 2 tool calls of the last turn were not run.",
    );
    expect(world.callsOf("postNote")).toEqual([{ note: "n1" }]);
    expect(signals.map((s) => s.aborted)).toEqual([false]);
    expect(result.calls.map((c) => [c.status, c.errorCode, c.attempts])).toEqual([
      ["ok", undefined, 1],
      ["skipped", "TOKEN_BUDGET_EXHAUSTED", 0],
      ["skipped", "TOKEN_BUDGET_EXHAUSTED", 0],
    ]);
    expect(heldTimers()).toBe(0);
  });

  it("accepts a final answer that spends the budget, but never asks for a correction turn beyond it", async () => {
    const h = harness();
    const paid = h.agent([{ text: "Hello!", usage: usage(2_000) }], { tokenBudget: { maxTokens: 1_000 } });
    expect((await paid.agent.run("hi")).status).toBe("completed");

    h.world.on("updateContact", () => {
      throw new HttpError(403, "forbidden");
    });
    const { agent, model } = h.agent(
      [
        { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }], usage: usage(400) },
        { text: "Updated successfully.", usage: usage(700) }, // would be corrected, but the budget is spent
      ],
      { tokenBudget: { maxTokens: 1_000 } },
    );
    const result = await agent.run("update c1");
    assertStatus(result, "budget_exhausted");
    expect(result.reason).toBe(
      "The run used 1100 tokens of its budget of 1000 (tokenBudget.maxTokens); the run was stopped before the next model turn.",
    );
    expect(model.requests).toHaveLength(2);
  });
});
