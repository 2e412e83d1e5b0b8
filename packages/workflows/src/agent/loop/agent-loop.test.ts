import { createToolInvoker, formatToolOutcome, isAbortError } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { invalidOption } from "../../../test/invalid-option.js";
import {
  assertStatus,
  CrmTools,
  deferred,
  harness,
  HttpError,
  ToolWorld,
  toolReply,
  untilAborted,
} from "../../../test/agent-fixtures.js";
import { createAgent } from "../agent.js";
import { AGENT_DEFAULTS } from "../agent-defaults.js";
import { ScriptedChatClient } from "@needlework/core";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the agent loop", () => {
  it("asks the model, runs the round, appends each outcome as a tool message, and completes on a final answer", async () => {
    const { agent, model } = harness().agent([
      {
        toolCalls: [
          { name: "updateContact", arguments: { contactId: "c1" } },
          { name: "postNote", arguments: '{"note":"synced"}' },
        ],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      },
      { text: "Updated c1 and posted a note.", usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
    ]);
    const result = await agent.run("Sync c1", { runId: "run-1" });
    expect(result).toMatchObject({
      status: "completed",
      runId: "run-1",
      text: "Updated c1 and posted a note.",
      iterations: 2,
      silentFailure: false,
      stepsToRecovery: undefined,
    });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 10, totalTokens: 40 });
    expect(result.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(result.messages[0]).toEqual({ role: "system", content: "You are a test agent." });
    expect(result.calls).toEqual([
      expect.objectContaining({
        tool: "updateContact",
        callId: "call_1_1",
        status: "ok",
        attempts: 1,
        round: 1,
        notCalled: false,
      }),
      expect.objectContaining({
        tool: "postNote",
        callId: "call_1_2",
        status: "ok",
        attempts: 1,
        round: 1,
        notCalled: false,
      }),
    ]);
    expect(result.health).toEqual({ tools_ok: 2, tools_failed: 0, tools_not_called: 0, blocking_failure: false });
    // The second request carries the tool messages, formatted as the model reads them.
    const second = model.requests[1]!;
    const tool = second.messages.find((m) => m.role === "tool" && m.toolCallId === "call_1_1");
    expect(tool).toMatchObject({ role: "tool", name: "updateContact" });
    expect(JSON.parse((tool as { content: string }).content)).toMatchObject({
      status: "ok",
      data: { ok: true, contactId: "c1" },
      metadata: { tool: "updateContact", call_id: "call_1_1" },
    });
    expect(second.tools.map((t) => t.name)).toContain("updateContact");
    expect(second.messages.some((m) => m.role === "user" && m.kind === "run_health")).toBe(false);
  });

  it("uses the factory's formatOutcome for tool messages", async () => {
    const { invoker } = harness();
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ name: "postNote", arguments: { note: "n" } }] },
      { text: "ok" },
    ]);
    const agent = createAgent(
      { invoker, formatOutcome: (o) => formatToolOutcome(o, { style: "needlr" }) },
      { name: "a", instructions: "", chatClient },
    );
    const result = await agent.run("go");
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({ content: '{"ok":true,"note":"n"}' });
  });

  it("runs a round concurrently up to maxConcurrency, with allSettled semantics and outcomes in the calls' order", async () => {
    const h = harness();
    const gates = new Map(["c1", "c2", "c3", "c4"].map((id) => [id, deferred()]));
    let running = 0;
    let peak = 0;
    h.world.on("updateContact", async ({ contactId }) => {
      running++;
      peak = Math.max(peak, running);
      await gates.get(contactId as string)!.promise;
      running--;
      if (contactId === "c2") throw new HttpError(404, "row c2 missing in tenant 77");
      return { updated: contactId };
    });
    const { agent } = h.agent(
      [
        {
          toolCalls: ["c1", "c2", "c3", "c4"].map((contactId) => ({ name: "updateContact", arguments: { contactId } })),
        },
        { text: "c2 was not found; the others were updated." },
      ],
      { maxConcurrency: 2 },
    );
    const run = agent.run("sync");
    await flush();
    expect(running).toBe(2);
    for (const id of ["c4", "c3", "c2", "c1"]) {
      gates.get(id)!.resolve(undefined);
      await flush();
    }
    const result = await run;
    expect(peak).toBe(2);
    expect(
      result.messages.filter((m) => m.role === "tool").map((m) => (m as { toolCallId: string }).toolCallId),
    ).toEqual(["call_1_1", "call_1_2", "call_1_3", "call_1_4"]);
    expect(result.calls.map((c) => c.status)).toEqual(["ok", "error", "ok", "ok"]);
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({ status: "error", error_code: "NOT_FOUND" });
    expect(result.status).toBe("completed_with_failures");
  });

  it("ends max_iterations when the model keeps calling tools", async () => {
    // Each turn asks something new, so this is not a stall (see stall.test.ts).
    const step = (_request: unknown, n: number) => ({
      toolCalls: [{ name: "postNote", arguments: { note: `again ${n}` } }],
    });
    const { agent, model } = harness().agent([step, step, step, step], { maxIterations: 3 });
    const result = await agent.run("loop");
    assertStatus(result, "max_iterations");
    expect(result.reason).toMatch(/3 model turns/);
    expect(result.iterations).toBe(3);
    expect(model.requests).toHaveLength(3);
  });

  it("aborts in-flight tools and rejects run with an AbortError when the caller aborts", async () => {
    const h = harness();
    const seen: AbortSignal[] = [];
    h.world.on("updateContact", (_args, ctx) => {
      seen.push(ctx.signal);
      return untilAborted(ctx.signal);
    });
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "updateContact", arguments: { contactId: "c1" } },
          { name: "updateContact", arguments: { contactId: "c2" } },
        ],
      },
    ]);
    const controller = new AbortController();
    const run = agent.run("sync", { signal: controller.signal });
    await flush();
    expect(seen).toHaveLength(2);
    controller.abort();
    const error = await run.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(seen.every((s) => s.aborted)).toBe(true);
  });

  it("rejects run with the caller's abort while the model is thinking", async () => {
    const controller = new AbortController();
    const { agent } = harness().agent([() => new Promise(() => undefined)]);
    const run = agent.run("hi", { signal: controller.signal });
    await flush();
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
  });

  it("leaves no abort listener on the caller's signal", async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (
      added++, add(...args)
    )) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
      removed++, remove(...args)
    )) as typeof signal.removeEventListener;
    const { agent } = harness().agent([
      { toolCalls: [{ name: "postNote", arguments: { note: "a" } }] },
      { text: "done" },
    ]);
    await agent.run("go", { signal });
    expect(added).toBeGreaterThan(0);
    expect(removed).toBe(added);
  });

  it("without the tool-result middleware a tool exception rejects run (Needlr's default)", async () => {
    const h = harness({ middleware: [] });
    const boom = new TypeError("db down");
    h.world.on("updateContact", () => {
      throw boom;
    });
    const { agent } = h.agent([
      { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
      { text: "never" },
    ]);
    await expect(agent.run("sync")).rejects.toBe(boom);
  });

  it("tells the model about unknown tools and invalid arguments without making them blocking", async () => {
    const { agent } = harness().agent([
      {
        toolCalls: [
          { name: "updateContct", arguments: { contactId: "c1" } },
          { name: "updateContact", arguments: { id: "c1" } },
        ],
      },
      { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
      { text: "Contact c1 was updated successfully." },
    ]);
    const result = await agent.run("sync");
    expect(toolReply(result.messages, "call_1_1")).toMatchObject({ error_code: "UNKNOWN_TOOL" });
    expect(toolReply(result.messages, "call_1_2")).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
    expect(result.calls.slice(0, 2).map((c) => c.notCalled)).toEqual([true, true]);
    const health = result.messages.find((m) => m.role === "user" && m.kind === "run_health");
    expect(health?.content).toContain('"tools_not_called":2');
    expect(health?.content).toContain('"blocking_failure":false');
    expect(result.status).toBe("completed");
  });

  it("replaces missing or repeated call ids so every tool message answers one call", async () => {
    const { invoker } = harness();
    const chatClient = {
      calls: 0,
      async complete() {
        return this.calls++ === 0
          ? {
              message: {
                toolCalls: [
                  { id: "", name: "postNote", arguments: { note: "a" } },
                  { id: "x", name: "postNote", arguments: { note: "b" } },
                  { id: "x", name: "postNote", arguments: { note: "c" } },
                ],
              },
            }
          : { message: { content: "noted" } };
      },
    };
    const result = await createAgent({ invoker }, { name: "a", instructions: "", chatClient }).run("go");
    const ids = result.calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(3);
    const assistant = result.messages.find((m) => m.role === "assistant" && m.toolCalls);
    expect(assistant?.role === "assistant" ? assistant.toolCalls?.map((c) => c.id) : undefined).toEqual(ids);
  });
});

describe("createAgent options", () => {
  const invoker = createToolInvoker(
    container.createChildContainer().register(ToolWorld, { useValue: new ToolWorld() }),
    { functions: [CrmTools] },
  );
  const base = { name: "a", instructions: "", chatClient: new ScriptedChatClient([]) };

  it("pins the defaults", () => {
    expect(AGENT_DEFAULTS).toEqual({
      maxIterations: 10,
      maxConcurrency: 8,
      maxToolCallsPerTurn: 128,
      roundPolicy: "best-effort",
      poisonThreshold: 3,
      stallThreshold: 3,
      checkpointMaxAgeMs: 604_800_000,
    });
  });

  it.each([
    [{ maxIterations: 0 }, "maxIterations", /'maxIterations' must be an integer of at least 1 \(got 0\)/],
    [{ maxConcurrency: 1.5 }, "maxConcurrency", /'maxConcurrency' must be an integer of at least 1 \(got 1\.5\)/],
    [
      { maxToolCallsPerTurn: 0 },
      "maxToolCallsPerTurn",
      /'maxToolCallsPerTurn' must be an integer of at least 1 \(got 0\)/,
    ],
    [{ roundPolicy: "yolo" }, "roundPolicy", /'roundPolicy' must be one of best-effort, all-or-nothing, fail-fast/],
    [{ guardrail: "strict" }, "guardrail", /'guardrail' must be a function \(text\) => boolean .*, or false/],
    [{ finalAnswer: { statusField: "s" } }, "finalAnswer.schema", /'finalAnswer\.schema' must be a zod schema/],
    [{ maxIteration: 3 }, "maxIteration", /unknown option 'maxIteration'\. Known options: name, /],
    [{ name: " " }, "name", /'name' must be a non-empty string \(got " "\)/],
    [{ chatClient: {} }, "chatClient", /'chatClient' must implement complete\(request\)/],
    [{ deadLetters: [] }, "deadLetters", /'deadLetters' must be a DeadLetterQueue with append and list/],
    [{ resumedCheckpoints: {} }, "resumedCheckpoints", /'resumedCheckpoints' must be a ResumedCheckpointStore/],
    [{ approvalPolicy: true }, "approvalPolicy", /'approvalPolicy' must be a function/],
    [{ clock: 0 }, "clock", /'clock' must be a function/],
    [{ checkpointMaxAgeMs: -1 }, "checkpointMaxAgeMs", /must be an integer of at least 1/],
    [{ functions: [{}] }, "functions.0", /must be a tool class/],
  ])("rejects %j", (extra, option, message) => {
    const error = invalidOption(() => createAgent({ invoker }, { ...base, ...(extra as object) }));
    expect(error).toMatchObject({ code: "INVALID_OPTION", option });
    expect(error.message).toMatch(/^createAgent: /);
    expect(error.message).toMatch(message);
  });
});
