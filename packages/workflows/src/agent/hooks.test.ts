import { NeedleworkError } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { checkpointOf, harness } from "../../test/agent-fixtures.js";
import { AgentHookError, type IterationEndInfo, type IterationStartInfo, type ToolCallInfo } from "./hooks.js";

const twoTurns = [
  {
    toolCalls: [
      { name: "updateContact", arguments: { contactId: "c1" } },
      { name: "postNote", arguments: { note: "n" } },
    ],
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
  },
  { text: "Done: c1 updated and a note posted.", usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } },
];

describe("loop hooks", () => {
  it("calls onIterationStart, onToolCall (per call, model order) and onIterationEnd, awaiting async hooks", async () => {
    const events: string[] = [];
    const starts: IterationStartInfo[] = [];
    const calls: ToolCallInfo[] = [];
    const ends: IterationEndInfo[] = [];
    const { agent } = harness().agent(twoTurns, {
      onIterationStart: async (info) => {
        await Promise.resolve();
        starts.push(info);
        events.push(`start ${info.iteration}`);
      },
      onToolCall: async (info) => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        calls.push(info);
        events.push(`call ${info.record.tool}`);
      },
      onIterationEnd: (info) => {
        ends.push(info);
        events.push(`end ${info.iteration} ${info.status ?? "-"}`);
      },
    });
    const result = await agent.run("sync c1", { runId: "run-h" });
    expect(events).toEqual(["start 1", "call updateContact", "call postNote", "end 1 -", "start 2", "end 2 completed"]);
    expect(starts[0]).toMatchObject({
      agent: "test-agent",
      runId: "run-h",
      iteration: 1,
      toolCalls: 0,
      usage: { totalTokens: 0 },
    });
    expect(starts[0]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(starts[1]).toMatchObject({ iteration: 2, toolCalls: 2, usage: { totalTokens: 12 } });
    expect(calls[0]).toMatchObject({
      agent: "test-agent",
      runId: "run-h",
      iteration: 1,
      arguments: { contactId: "c1" },
      record: result.calls[0],
      outcome: { status: "ok" },
    });
    expect(ends[0]!.calls).toEqual(result.calls);
    expect(ends[1]).toMatchObject({ calls: [], usage: { totalTokens: 35 }, status: "completed" });
  });

  it.each(["onIterationStart", "onToolCall", "onIterationEnd"] as const)(
    "a throwing %s fails the run with AgentHookError naming the hook, cause kept",
    async (hook) => {
      const boom = new RangeError("metrics backend down");
      const h = harness();
      const { agent } = h.agent(twoTurns, {
        [hook]: () => {
          throw boom;
        },
      });
      const error = await agent.run("sync c1", { runId: "run-x" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AgentHookError);
      expect(NeedleworkError.isInstance(error)).toBe(true);
      const hookError = error as AgentHookError;
      expect(hookError).toMatchObject({
        code: "AGENT_HOOK_FAILED",
        hook,
        agent: "test-agent",
        runId: "run-x",
        iteration: 1,
        cause: boom,
      });
      expect(hookError.message).toBe(
        `Agent 'test-agent': the ${hook} hook threw (RangeError: metrics backend down) in iteration 1 of run run-x; the run was stopped. Fix the hook, or catch inside it if its failure should not stop the run.`,
      );
      // A failing start hook stops the run before the model is asked or any tool runs.
      if (hook === "onIterationStart") expect(h.world.log).toHaveLength(0);
    },
  );

  it("reports a rejected promise and a thrown non-error alike", async () => {
    const { agent } = harness().agent(twoTurns, { onToolCall: () => Promise.reject("nope") });
    await expect(agent.run("x")).rejects.toThrow("the onToolCall hook threw (a thrown string: nope)");
  });

  it("on resume, reports the resumed round's calls and the iteration's end", async () => {
    const seen: string[] = [];
    const h = harness();
    const { agent } = h.agent(
      [{ toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 5 } }] }, { text: "Refunded o1." }],
      {
        checkpointSecret: "s".repeat(32),
        onToolCall: ({ record }) => void seen.push(`call ${record.tool} ${record.status}`),
        onIterationEnd: ({ iteration, status }) => void seen.push(`end ${iteration} ${status ?? "-"}`),
      },
    );
    const paused = await agent.run("refund o1");
    expect(seen).toEqual(["end 1 awaiting_approval"]);
    await agent.resume(checkpointOf(paused), { call_1_1: "approved" });
    expect(seen).toEqual(["end 1 awaiting_approval", "call refund ok", "end 1 -", "end 2 completed"]);
  });

  it("rejects a hook that is not a function when the agent is created", () => {
    const error = invalidOption(() => harness().agent([], { onToolCall: "log" as never }));
    expect(error).toMatchObject({ code: "INVALID_OPTION", option: "onToolCall", value: "log" });
    expect(error.message).toBe("createAgent: option 'onToolCall' must be a function (it may be async) (got \"log\").");
  });
});
