import { AgentFunction, AgentFunctionGroup, ScriptedChatClient, ScriptExhaustedError } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../builder/agent-framework.builder.js";

const request = (content: string) => ({ messages: [{ role: "user" as const, content }], tools: [] });

describe("ScriptedChatClient", () => {
  it("plays fixed and computed steps in order, generating missing call ids per step", async () => {
    const model = new ScriptedChatClient([
      {
        toolCalls: [
          { name: "a", arguments: { x: 1 } },
          { id: "mine", name: "b" },
        ],
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      },
      async (req, step) => ({ text: `step ${step} saw ${req.messages.length} message(s)` }),
    ]);
    const first = await model.complete(request("hi"));
    expect(first.message.toolCalls).toEqual([
      { id: "call_1_1", name: "a", arguments: { x: 1 } },
      { id: "mine", name: "b", arguments: {} },
    ]);
    expect(first.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    expect((await model.complete(request("again"))).message).toEqual({ content: "step 2 saw 1 message(s)" });
    expect(model.remaining).toBe(0);
  });

  it("records a snapshot of every request", async () => {
    const model = new ScriptedChatClient([{ text: "one" }, { text: "two" }]);
    const messages = [{ role: "user" as const, content: "hi" }];
    await model.complete({ messages, tools: [] });
    messages.push({ role: "user", content: "later" });
    expect(model.requests[0]?.messages).toHaveLength(1);
  });

  it("names the step when the script runs out", async () => {
    const model = new ScriptedChatClient([{ text: "only" }]);
    await model.complete(request("hi"));
    const error = await model.complete(request("more please")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect((error as ScriptExhaustedError).step).toBe(2);
    expect((error as Error).message).toMatch(/asked for step 2, but the script has only 1 step\b.*more please/);
  });

  it("rejects with the abort reason when the request's signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new ScriptedChatClient([{ text: "x" }]).complete({ ...request("hi"), signal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("ScriptedChatClient.stream", () => {
  it("streams the text word by word (whitespace kept), then the tool calls, then finish with usage", async () => {
    const model = new ScriptedChatClient([
      {
        text: " Looking  it up.\n",
        toolCalls: [{ name: "a", arguments: { x: 1 } }],
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      },
      { text: "" },
    ]);
    const parts = [];
    for await (const part of model.stream(request("hi"))) parts.push(part);
    expect(parts).toEqual([
      { type: "text-delta", delta: " " },
      { type: "text-delta", delta: "Looking  " },
      { type: "text-delta", delta: "it " },
      { type: "text-delta", delta: "up.\n" },
      { type: "tool-call", toolCall: { id: "call_1_1", name: "a", arguments: { x: 1 } } },
      { type: "finish", finishReason: "tool_calls", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
    ]);
    const empty = [];
    for await (const part of model.stream(request("again"))) empty.push(part);
    expect(empty).toEqual([
      { type: "text-delta", delta: "" },
      { type: "finish", finishReason: "stop" },
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it("paces the words with wordDelayMs and stops when the signal aborts", async () => {
    const model = new ScriptedChatClient([{ text: "one two three" }], { wordDelayMs: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const part of model.stream({ ...request("hi"), signal: controller.signal })) {
        if (part.type === "text-delta") seen.push(part.delta);
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["one "]);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(() => new ScriptedChatClient([], { wordDelayMs: -1 })).toThrow(/wordDelayMs/);
  });
});

describe("ScriptedChatClient stepBy", () => {
  const script = [{ toolCalls: [{ name: "refund", arguments: { orderId: "ORD-1" } }] }, { text: "Refunded ORD-1." }];

  @AgentFunctionGroup()
  class RefundTools {
    refunds = 0;
    @AgentFunction({
      description: "Refunds an order.",
      input: z.object({ orderId: z.string().describe("Order id.") }),
      requiresApproval: true,
    })
    refund() {
      this.refunds += 1;
      return { refunded: true };
    }
  }

  const secret = "s".repeat(32);
  const agentWith = (chatClient: ScriptedChatClient) =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(RefundTools)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false })
      .createAgent({ name: "refunds", instructions: "Refund.", chatClient, checkpointSecret: secret });

  it('"conversation": a run resumed by a new client (as in another process) continues its script', async () => {
    const paused = await agentWith(new ScriptedChatClient(script)).run("Refund ORD-1.");
    if (paused.status !== "awaiting_approval") throw new Error(`expected a pause, got ${paused.status}`);
    const elsewhere = new ScriptedChatClient(script, { stepBy: "conversation" });
    const done = await agentWith(elsewhere).resume(paused.checkpoint, {
      [paused.pendingApprovals[0]!.callId]: "approved",
    });
    expect(done.status).toBe("completed");
    expect(done.text).toBe("Refunded ORD-1.");
    expect(elsewhere.requests).toHaveLength(1);
    expect(elsewhere.remaining).toBe(0);
  });

  it('"calls" (the default): a new client starts its script again at step 1', async () => {
    const paused = await agentWith(new ScriptedChatClient(script)).run("Refund ORD-1.");
    if (paused.status !== "awaiting_approval") throw new Error(`expected a pause, got ${paused.status}`);
    const restarted = new ScriptedChatClient(script);
    const again = await agentWith(restarted).resume(paused.checkpoint, {
      [paused.pendingApprovals[0]!.callId]: "approved",
    });
    // Step 1 again: the model "asks" for the refund a second time, which pauses the run once more.
    expect(again.status).toBe("awaiting_approval");
    expect(restarted.remaining).toBe(1);
  });

  it("refuses an unknown stepBy", () => {
    expect(() => new ScriptedChatClient(script, { stepBy: "turns" as "calls" })).toThrow(
      'ScriptedChatClient: stepBy must be "calls" or "conversation" (got "turns").',
    );
  });
});
