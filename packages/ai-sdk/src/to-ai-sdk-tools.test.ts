import { createToolInvoker, formatToolOutcome, type ToolInvoker } from "@needlework/core";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { container } from "tsyringe";
import { describe, expect, it, vi } from "vitest";
import { cancellations, ShopTools, whenWaitStarts } from "../test/fixtures.js";
import { toAiSdkTools } from "./to-ai-sdk-tools.js";

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;

function callTool(toolName: string, input: string, toolCallId = "call-1"): GenerateResult {
  return { content: [{ type: "tool-call", toolCallId, toolName, input }], finishReason: "tool-calls", usage, warnings: [] };
}

function answer(text: string): GenerateResult {
  return { content: [{ type: "text", text }], finishReason: "stop", usage, warnings: [] };
}

/** A mock model that plays one response per step and records what it was sent. */
function scriptedModel(...steps: GenerateResult[]): MockLanguageModelV2 {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async () => {
      const next = steps[step++];
      if (!next) throw new Error(`the script has only ${steps.length} steps`);
      return next;
    },
  });
}

/** The tool-result parts of the prompt the model received at `step`. */
function toolResultsSentAt(model: MockLanguageModelV2, step: number) {
  const prompt = model.doGenerateCalls[step]?.prompt ?? [];
  return prompt.flatMap((message) => (message.role === "tool" ? message.content : []));
}

const invoker = (): ToolInvoker => createToolInvoker(container.createChildContainer(), { functions: [ShopTools] });

describe("toAiSdkTools", () => {
  it("offers every tool with its description and needlework's JSON Schema", async () => {
    const tools = toAiSdkTools(invoker());
    expect(Object.keys(tools).sort()).toEqual(["explode", "getOrderStatus", "waitForCancel"]);
    const model = scriptedModel(answer("hi"));
    await generateText({ model, tools, prompt: "hello" });
    const sent = model.doGenerateCalls[0]?.tools?.find((t) => t.name === "getOrderStatus");
    expect(sent).toMatchObject({
      type: "function",
      description: "Looks up an order by ID.",
      inputSchema: { type: "object", properties: { orderId: { type: "string", minLength: 1 } }, required: ["orderId"], additionalProperties: false },
    });
  });

  it("in a multi-step run, a failing tool's envelope reaches the model, which recovers on the next step", async () => {
    const model = scriptedModel(
      callTool("getOrderStatus", '{"orderId":"ORD-404"}', "call-a"),
      callTool("getOrderStatus", '{"orderId":"ORD-1"}', "call-b"),
      answer("Order ORD-1 has shipped."),
    );
    const result = await generateText({ model, tools: toAiSdkTools(invoker(), { runId: "run-1" }), stopWhen: stepCountIs(5), prompt: "Where is my order?" });

    expect(result.text).toBe("Order ORD-1 has shipped.");
    expect(result.steps).toHaveLength(3);
    const [failed] = toolResultsSentAt(model, 1);
    expect(failed).toMatchObject({
      type: "tool-result",
      toolCallId: "call-a",
      toolName: "getOrderStatus",
      output: {
        type: "error-json",
        value: {
          status: "error",
          error_code: "ORDER_NOT_FOUND",
          retriable: false,
          message: "Order 'ORD-404' not found",
          suggestion: "Verify the ID with the customer.",
          metadata: { tool: "getOrderStatus", call_id: "call-a", attempts: 1, idempotency_key: "run-1:call-a" },
        },
      },
    });
    const succeeded = toolResultsSentAt(model, 2).find((part) => part.toolCallId === "call-b");
    expect(succeeded?.output).toMatchObject({ type: "json", value: { status: "ok", data: { orderId: "ORD-1", status: "shipped", runId: "run-1" } } });
    // The AI SDK's own view of the run keeps the structured envelope.
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: "error", error_code: "ORDER_NOT_FOUND" });
  });

  it("returns ok envelopes for successful calls", async () => {
    const model = scriptedModel(callTool("getOrderStatus", '{"orderId":"ORD-1"}'), answer("shipped"));
    const result = await generateText({ model, tools: toAiSdkTools(invoker(), { omitMetadata: true }), stopWhen: stepCountIs(3), prompt: "ORD-1?" });
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({ status: "ok", retriable: false, data: { orderId: "ORD-1", status: "shipped", runId: expect.any(String) } });
    expect(toolResultsSentAt(model, 1)[0]?.output.type).toBe("json");
  });

  it("arguments that break the schema come back as needlework's INVALID_ARGUMENTS envelope, not an AI SDK error", async () => {
    const model = scriptedModel(callTool("getOrderStatus", '{"orderId":42}'), answer("sorry"));
    const result = await generateText({ model, tools: toAiSdkTools(invoker()), stopWhen: stepCountIs(3), prompt: "ORD?" });
    expect(result.steps[0]?.content.some((part) => part.type === "tool-error")).toBe(false);
    const [sent] = toolResultsSentAt(model, 1);
    expect(sent?.output).toMatchObject({
      type: "error-json",
      value: { status: "error", error_code: "INVALID_ARGUMENTS", suggestion: "Call the tool again with arguments that match its schema." },
    });
    expect(JSON.stringify(sent?.output)).toContain("orderId");
  });

  it("a thrown exception (no result middleware) becomes UNHANDLED_ERROR naming the type only, and onError sees it", async () => {
    const onError = vi.fn();
    const model = scriptedModel(callTool("explode", "{}", "call-x"), answer("sorry"));
    await generateText({ model, tools: toAiSdkTools(invoker(), { onError }), stopWhen: stepCountIs(3), prompt: "boom" });
    const [sent] = toolResultsSentAt(model, 1);
    expect(sent?.output).toMatchObject({
      type: "error-json",
      value: { status: "error", error_code: "UNHANDLED_ERROR", message: "An unexpected error occurred (TypeError). The call was not retried." },
    });
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).not.toContain("hunter2");
    expect(onError).toHaveBeenCalledWith(expect.any(TypeError), { name: "explode", callId: "call-x" });
  });

  it("format decides what the model reads (e.g. a factory's formatOutcome string)", async () => {
    const model = scriptedModel(callTool("getOrderStatus", '{"orderId":"ORD-404"}'), answer("sorry"));
    const format = (outcome: Parameters<typeof formatToolOutcome>[0]) => formatToolOutcome(outcome, { style: "needlr" });
    await generateText({ model, tools: toAiSdkTools(invoker(), { format }), stopWhen: stepCountIs(3), prompt: "ORD-404?" });
    expect(toolResultsSentAt(model, 1)[0]?.output).toEqual({
      type: "text",
      value: JSON.stringify({ error: { message: "Order 'ORD-404' not found", suggestion: "Verify the ID with the customer." } }),
    });
  });

  it("offers only the named subset, and names unknown tools in the error", () => {
    expect(Object.keys(toAiSdkTools(invoker(), { tools: ["getOrderStatus"] }))).toEqual(["getOrderStatus"]);
    expect(() => toAiSdkTools(invoker(), { tools: ["getOrderStatus", "nope"] })).toThrow(/no tool named 'nope'/);
  });

  it("a runId function names the run per call from the call and the context", async () => {
    const model = scriptedModel(callTool("getOrderStatus", '{"orderId":"ORD-1"}', "call-r"), answer("ok"));
    const runId = vi.fn((call: { toolCallId: string; context: unknown }) => `${String(call.context)}-${call.toolCallId}`);
    const result = await generateText({ model, tools: toAiSdkTools(invoker(), { runId }), stopWhen: stepCountIs(3), prompt: "?", experimental_context: "conv-7" });
    expect(runId).toHaveBeenCalledWith({ toolName: "getOrderStatus", toolCallId: "call-r", context: "conv-7" });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ data: { runId: "conv-7-call-r" } });
  });

  it("passes the abort signal to the tool: aborting the run cancels the call and rejects generateText", async () => {
    const controller = new AbortController();
    const model = scriptedModel(callTool("waitForCancel", "{}"), answer("never"));
    const started = whenWaitStarts();
    const onError = vi.fn();
    cancellations.length = 0;
    const run = generateText({ model, tools: toAiSdkTools(invoker(), { onError }), stopWhen: stepCountIs(3), prompt: "wait", abortSignal: controller.signal });
    await started;
    const reason = new DOMException("user left", "AbortError");
    controller.abort(reason);
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(cancellations).toEqual([reason]);
    expect(onError).not.toHaveBeenCalled();
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});
