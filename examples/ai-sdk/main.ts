import "reflect-metadata";
import { toAiSdkTools } from "@needlework/ai-sdk";
import { usingAgentFramework } from "@needlework/workflows";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { container } from "tsyringe";
import { OrderTools } from "../order-lookup/order-tools.js";

type Step = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const callTool = (toolCallId: string, orderId: string): Step => ({
  content: [{ type: "tool-call", toolCallId, toolName: "getOrderStatus", input: JSON.stringify({ orderId }) }],
  finishReason: "tool-calls",
  usage,
  warnings: [],
});

/**
 * A stand-in for a real model so the example runs offline: it asks for a mistyped order first,
 * then (having read the envelope) for the right one. Swap in any AI SDK model, e.g.
 * `openai("gpt-4o-mini")` from `@ai-sdk/openai`; nothing else changes.
 */
function scriptedModel(): MockLanguageModelV2 {
  const steps: Step[] = [
    callTool("call-1", "ORD-999"),
    callTool("call-2", "ORD-12345"),
    { content: [{ type: "text", text: "Order ORD-12345 has shipped with DHL." }], finishReason: "stop", usage, warnings: [] },
  ];
  let step = 0;
  return new MockLanguageModelV2({ doGenerate: async () => steps[Math.min(step++, steps.length - 1)]! });
}

/** Runs `generateText` with needlework tools and prints what the model read after each step. */
export async function runAiSdkExample(print: (line: string) => void = console.log): Promise<void> {
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(OrderTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();

  const result = await generateText({
    model: scriptedModel(),
    tools: toAiSdkTools(factory.tools, { omitMetadata: true }),
    stopWhen: stepCountIs(5),
    prompt: "Where is my order? I think it is ORD-999.",
  });

  for (const [i, step] of result.steps.entries()) {
    for (const toolResult of step.toolResults) {
      print(`step ${i + 1}: ${toolResult.toolName}(${JSON.stringify(toolResult.input)})\n  -> ${JSON.stringify(toolResult.output)}`);
    }
  }
  print(`answer: ${result.text}`);
}
