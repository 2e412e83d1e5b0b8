import { createToolInvoker, formatToolOutcome, type ToolInvoker } from "@needlework/core";
import { container } from "tsyringe";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { cancellations, cancelledOrders, ShopTools, whenWaitStarts } from "./shop-tools.js";
import { toAiSdkToolApproval } from "../src/to-ai-sdk-tool-approval.js";
import { toAiSdkTools } from "../src/to-ai-sdk-tools.js";
import { type AiSdkMajor, itSinceAiSdk7, type ScriptedModel, type ScriptStep } from "./ai-sdk-majors.js";

const callTool = (name: string, input: string, id = "call-1"): ScriptStep => ({ toolCalls: [{ id, name, input }] });
const answer = (text: string): ScriptStep => ({ text });

interface ToolResultPart {
  readonly type: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output: { readonly type: string; readonly value?: unknown };
}

/** The tool-result parts of the prompt the model received at `step`. */
function toolResultsSentAt(model: ScriptedModel, step: number): ToolResultPart[] {
  const prompt = model.calls()[step]?.prompt ?? [];
  return prompt
    .flatMap((m) => (m.role === "tool" ? (m.content as ToolResultPart[]) : []))
    .filter((p) => p.type === "tool-result");
}

const invoker = (): ToolInvoker => createToolInvoker(container.createChildContainer(), { functions: [ShopTools] });

/** The adapter's behaviour under one AI SDK major (`generateText` with the SDK's own mock model). */
export function describeToAiSdkTools(sdk: AiSdkMajor): void {
  const { generateText, stepCountIs } = sdk;
  const itSince7 = itSinceAiSdk7(sdk);
  describe(`toAiSdkTools with AI SDK ${sdk.major} (LanguageModel${sdk.spec.toUpperCase()})`, () => {
    beforeEach(() => {
      cancelledOrders.length = 0;
    });

    it("offers every tool with its description and needlework's JSON Schema", async () => {
      const tools = toAiSdkTools(invoker());
      expect(Object.keys(tools).sort()).toEqual([
        "cancelOrder",
        "explode",
        "getOrderStatus",
        "markSeen",
        "waitForCancel",
      ]);
      const model = sdk.scriptedModel([answer("hi")]);
      await generateText({ model: model.model, tools, prompt: "hello" });
      expect(model.calls()[0]?.tools?.find((t) => t.name === "getOrderStatus")).toMatchObject({
        type: "function",
        description: "Looks up an order by ID.",
        inputSchema: {
          type: "object",
          properties: { orderId: { type: "string", minLength: 1 } },
          required: ["orderId"],
          additionalProperties: false,
        },
      });
    });

    it("in a multi-step run, a failing tool's envelope reaches the model, which recovers on the next step", async () => {
      const model = sdk.scriptedModel([
        callTool("getOrderStatus", '{"orderId":"ORD-404"}', "call-a"),
        callTool("getOrderStatus", '{"orderId":"ORD-1"}', "call-b"),
        answer("Order ORD-1 has shipped."),
      ]);
      const tools = toAiSdkTools(invoker(), { runId: "run-1" });
      const result = await generateText({
        model: model.model,
        tools,
        stopWhen: stepCountIs(5),
        prompt: "Where is my order?",
      });
      expect(result.text).toBe("Order ORD-1 has shipped.");
      expect(result.steps).toHaveLength(3);
      expect(toolResultsSentAt(model, 1)[0]).toMatchObject({
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
      expect(succeeded?.output).toMatchObject({
        type: "json",
        value: { status: "ok", data: { orderId: "ORD-1", status: "shipped", runId: "run-1" } },
      });
      expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: "error", error_code: "ORDER_NOT_FOUND" });
    });

    it("arguments that break the schema come back as needlework's INVALID_ARGUMENTS envelope, not an AI SDK error", async () => {
      const model = sdk.scriptedModel([callTool("getOrderStatus", '{"orderId":42}'), answer("sorry")]);
      const result = await generateText({
        model: model.model,
        tools: toAiSdkTools(invoker()),
        stopWhen: stepCountIs(3),
        prompt: "ORD?",
      });
      expect(result.steps[0]?.content.some((part) => part.type === "tool-error")).toBe(false);
      const [sent] = toolResultsSentAt(model, 1);
      expect(sent?.output).toMatchObject({
        type: "error-json",
        value: { status: "error", error_code: "INVALID_ARGUMENTS" },
      });
      expect(JSON.stringify(sent?.output)).toContain("orderId");
    });

    it("a thrown exception becomes UNHANDLED_ERROR naming the type only, and onError sees it", async () => {
      const onError = vi.fn();
      const model = sdk.scriptedModel([callTool("explode", "{}", "call-x"), answer("sorry")]);
      await generateText({
        model: model.model,
        tools: toAiSdkTools(invoker(), { onError }),
        stopWhen: stepCountIs(3),
        prompt: "boom",
      });
      expect(toolResultsSentAt(model, 1)[0]?.output).toMatchObject({
        type: "error-json",
        value: { status: "error", error_code: "UNHANDLED_ERROR" },
      });
      expect(JSON.stringify(model.calls()[1]?.prompt)).not.toContain("hunter2");
      expect(onError).toHaveBeenCalledWith(expect.any(TypeError), { name: "explode", callId: "call-x" });
    });

    it("format decides what the model reads (toModelOutput sends a rendered string as text)", async () => {
      const model = sdk.scriptedModel([callTool("getOrderStatus", '{"orderId":"ORD-404"}'), answer("sorry")]);
      const format = (outcome: Parameters<typeof formatToolOutcome>[0]) =>
        formatToolOutcome(outcome, { style: "needlr" });
      await generateText({
        model: model.model,
        tools: toAiSdkTools(invoker(), { format }),
        stopWhen: stepCountIs(3),
        prompt: "ORD-404?",
      });
      expect(toolResultsSentAt(model, 1)[0]?.output).toEqual({
        type: "text",
        value: JSON.stringify({
          error: { message: "Order 'ORD-404' not found", suggestion: "Verify the ID with the customer." },
        }),
      });
    });

    it("offers only the named subset, and names unknown tools in the error", () => {
      expect(Object.keys(toAiSdkTools(invoker(), { tools: ["getOrderStatus"] }))).toEqual(["getOrderStatus"]);
      expect(() => toAiSdkTools(invoker(), { tools: ["getOrderStatus", "nope"] })).toThrow(/no tool named 'nope'/);
    });

    it("a runId function names the run per call from the call and the SDK's context", async () => {
      const model = sdk.scriptedModel([callTool("getOrderStatus", '{"orderId":"ORD-1"}', "call-r"), answer("ok")]);
      const runId = vi.fn(
        (call: { toolCallId: string; context: unknown }) => `${String(call.context)}-${call.toolCallId}`,
      );
      const result = await generateText({
        model: model.model,
        tools: toAiSdkTools(invoker(), { runId }),
        stopWhen: stepCountIs(3),
        prompt: "?",
        ...sdk.contextOptions("getOrderStatus", "conv-7"),
      });
      expect(runId).toHaveBeenCalledWith({ toolName: "getOrderStatus", toolCallId: "call-r", context: "conv-7" });
      expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ data: { runId: "conv-7-call-r" } });
    });

    it("aborting the run cancels the tool call and rejects generateText", async () => {
      const controller = new AbortController();
      const model = sdk.scriptedModel([callTool("waitForCancel", "{}"), answer("never")]);
      const started = whenWaitStarts();
      cancellations.length = 0;
      const run = generateText({
        model: model.model,
        tools: toAiSdkTools(invoker()),
        stopWhen: stepCountIs(3),
        prompt: "wait",
        abortSignal: controller.signal,
      });
      await started;
      const reason = new DOMException("user left", "AbortError");
      controller.abort(reason);
      await expect(run).rejects.toMatchObject({ name: "AbortError" });
      expect(cancellations).toEqual([reason]);
      expect(model.calls()).toHaveLength(1);
    });

    it("a requiresApproval tool carries needsApproval and does not run until approved", async () => {
      const tools = toAiSdkTools(invoker());
      expect(tools.cancelOrder).toMatchObject({ needsApproval: true });
      expect(tools.getOrderStatus).not.toHaveProperty("needsApproval");
      const model = sdk.scriptedModel([
        callTool("cancelOrder", '{"orderId":"ORD-1"}', "call-c"),
        answer("Cancelled."),
        answer("Kept."),
      ]);
      const first = await generateText({ model: model.model, tools, stopWhen: stepCountIs(3), prompt: "Cancel ORD-1" });
      const request = first.content.find((part) => part.type === "tool-approval-request");
      expect(request).toBeDefined();
      expect(cancelledOrders).toEqual([]);
      expect(model.calls()).toHaveLength(1);

      const approve = (approved: boolean) => ({
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request?.approvalId, approved }],
      });
      const messages = [{ role: "user", content: "Cancel ORD-1" }, ...first.response.messages];
      await generateText({
        model: model.model,
        tools,
        stopWhen: stepCountIs(3),
        messages: [...messages, approve(true)],
      });
      expect(cancelledOrders).toEqual(["ORD-1"]);
      await generateText({
        model: model.model,
        tools,
        stopWhen: stepCountIs(3),
        messages: [...messages, approve(false)],
      });
      expect(cancelledOrders).toEqual(["ORD-1"]);
    });

    it("a requiresApproval call with invalid arguments is never put to the user and never runs", async () => {
      const tools = toAiSdkTools(invoker());
      const model = sdk.scriptedModel([callTool("cancelOrder", '{"orderId":""}', "call-bad"), answer("Sorry.")]);
      const result = await generateText({ model: model.model, tools, stopWhen: stepCountIs(3), prompt: "Cancel" });
      expect(result.content.some((part) => part.type === "tool-approval-request")).toBe(false);
      expect(cancelledOrders).toEqual([]);
      expect(JSON.stringify(model.calls()[1]?.prompt)).toContain("INVALID_ARGUMENTS");
    });

    it("a requiresApproval call too long to show whole is refused (APPROVAL_ARGUMENTS_TOO_LONG), never asked", async () => {
      const tools = toAiSdkTools(invoker());
      const long = JSON.stringify({ orderId: `ORD-${"1".repeat(5_000)}` });
      const model = sdk.scriptedModel([callTool("cancelOrder", long, "call-long"), answer("Sorry.")]);
      const result = await generateText({ model: model.model, tools, stopWhen: stepCountIs(3), prompt: "Cancel" });
      expect(result.content.some((part) => part.type === "tool-approval-request")).toBe(false);
      expect(cancelledOrders).toEqual([]);
      expect(JSON.stringify(model.calls()[1]?.prompt)).toContain("APPROVAL_ARGUMENTS_TOO_LONG");
    });

    itSince7(
      "with experimental_toolApprovalSecret, an approval never runs other arguments than the ones shown",
      async () => {
        const tools = toAiSdkTools(invoker());
        const secret = "approval-secret-0123456789abcdef0123";
        const model = sdk.scriptedModel([callTool("cancelOrder", '{"orderId":"ORD-1"}', "call-s"), answer("Done.")]);
        const options = {
          model: model.model,
          tools,
          stopWhen: stepCountIs(3),
          experimental_toolApprovalSecret: secret,
        };
        const first = await generateText({ ...options, prompt: "Cancel ORD-1" });
        const request = first.content.find((part) => part.type === "tool-approval-request");
        // The browser sends the history back with another order in the approved call.
        const tampered = JSON.parse(JSON.stringify(first.response.messages).replaceAll("ORD-1", "ORD-2")) as unknown[];
        const approved = {
          role: "tool",
          content: [{ type: "tool-approval-response", approvalId: request?.approvalId, approved: true }],
        };
        await expect(
          generateText({ ...options, messages: [{ role: "user", content: "Cancel ORD-1" }, ...tampered, approved] }),
        ).rejects.toThrow(/signature/i);
        expect(cancelledOrders).toEqual([]);
        const history = [{ role: "user", content: "Cancel ORD-1" }, ...first.response.messages, approved];
        await generateText({ ...options, messages: history });
        expect(cancelledOrders).toEqual(["ORD-1"]);
      },
    );

    itSince7("toAiSdkToolApproval is the toolApproval configuration: approval tools wait for the user", async () => {
      const approval = toAiSdkToolApproval(invoker());
      expect(approval).toMatchObject({ cancelOrder: "user-approval", getOrderStatus: "not-applicable" });
      const tools = toAiSdkTools(invoker());
      const model = sdk.scriptedModel([callTool("cancelOrder", '{"orderId":"ORD-1"}'), answer("never")]);
      const result = await generateText({
        model: model.model,
        tools,
        toolApproval: approval,
        stopWhen: stepCountIs(3),
        prompt: "Cancel",
      });
      expect(result.content.some((part) => part.type === "tool-approval-request")).toBe(true);
      expect(cancelledOrders).toEqual([]);
      const lookup = sdk.scriptedModel([callTool("getOrderStatus", '{"orderId":"ORD-1"}'), answer("shipped")]);
      const ran = await generateText({
        model: lookup.model,
        tools,
        toolApproval: approval,
        stopWhen: stepCountIs(3),
        prompt: "ORD-1?",
      });
      expect(ran.text).toBe("shipped");
    });
  });
}
