import "reflect-metadata";
import { AiSdkChatClient, toAiSdkToolApproval, toAiSdkTools } from "@needlework/ai-sdk";
import { usingAgentFramework } from "@needlework/workflows";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { container } from "tsyringe";
import { OrderTools } from "../order-lookup/order-tools.js";

type Step = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
const usage: Step["usage"] = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const callTool = (toolCallId: string, orderId: string): Step => ({
  content: [{ type: "tool-call", toolCallId, toolName: "getOrderStatus", input: JSON.stringify({ orderId }) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const answer = (text: string): Step => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: [],
});

/**
 * A stand-in for a real model so the example runs offline: it asks for a mistyped order first,
 * then (having read the envelope) for the right one. Swap in any AI SDK model, e.g.
 * `openai("gpt-4o-mini")` from `@ai-sdk/openai`; nothing else changes.
 */
function scriptedModel(): MockLanguageModelV4 {
  const steps = [
    callTool("call-1", "ORD-999"),
    callTool("call-2", "ORD-12345"),
    answer("Order ORD-12345 has shipped with DHL."),
  ];
  let step = 0;
  return new MockLanguageModelV4({
    provider: "openai.chat",
    doGenerate: async () => steps[Math.min(step++, steps.length - 1)]!,
  });
}

function buildFactory() {
  return usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(OrderTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
}

/**
 * Runs the same conversation twice: once with AI SDK 7's `generateText` driving needlework tools,
 * once with needlework's agent loop driving the AI SDK model through `AiSdkChatClient`.
 */
export async function runAiSdkExample(print: (line: string) => void = console.log): Promise<void> {
  const factory = buildFactory();
  const result = await generateText({
    model: scriptedModel(),
    tools: toAiSdkTools(factory.tools, { omitMetadata: true }),
    toolApproval: toAiSdkToolApproval(factory.tools), // approval tools wait for the user; none here
    stopWhen: stepCountIs(5),
    prompt: "Where is my order? I think it is ORD-999.",
  });
  for (const [i, step] of result.steps.entries()) {
    for (const toolResult of step.toolResults) {
      print(
        `step ${i + 1}: ${toolResult.toolName}(${JSON.stringify(toolResult.input)})\n  -> ${JSON.stringify(toolResult.output)}`,
      );
    }
  }
  print(`answer: ${result.text}`);

  const agent = buildFactory().createAgent({
    name: "orders",
    instructions: "You look up orders.",
    chatClient: new AiSdkChatClient(scriptedModel()),
  });
  const run = await agent.run("Where is my order? I think it is ORD-999.");
  print(`agent over AiSdkChatClient: ${run.status}, ${run.calls.map((c) => `${c.tool}=${c.status}`).join(", ")}`);
  print(`answer: ${run.text}`);
}
