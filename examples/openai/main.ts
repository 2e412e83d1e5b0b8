import "reflect-metadata";
import { OpenAIChatClient } from "@needlework/openai";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { OrderTools } from "../order-lookup/order-tools.js";

const HOW_TO = `This example runs a needlework agent against an OpenAI-compatible chat-completions server.
Set OPENAI_BASE_URL (and OPENAI_MODEL, and OPENAI_API_KEY when the server needs one), then run it again:

  OpenAI     OPENAI_BASE_URL=https://api.openai.com/v1  OPENAI_API_KEY=sk-...  OPENAI_MODEL=gpt-4o-mini
  Ollama     OPENAI_BASE_URL=http://localhost:11434/v1  OPENAI_MODEL=llama3.1
  vLLM       OPENAI_BASE_URL=http://localhost:8000/v1   OPENAI_MODEL=Qwen/Qwen2.5-7B-Instruct
  llama.cpp  OPENAI_BASE_URL=http://localhost:8080/v1   OPENAI_MODEL=local

The model must support tool calling.`;

/** What the example reads from the environment. */
export interface OpenAIExampleEnv {
  readonly OPENAI_BASE_URL?: string | undefined;
  readonly OPENAI_API_KEY?: string | undefined;
  readonly OPENAI_MODEL?: string | undefined;
}

/**
 * Asks a real model where an order is, with the order tools behind the recommended pipeline. The
 * customer's first order id does not exist, so the model reads an ORDER_NOT_FOUND envelope and
 * has to recover. Without OPENAI_BASE_URL it prints what to set and returns.
 */
export async function runOpenAIExample(env: OpenAIExampleEnv = process.env, print: (line: string) => void = console.log): Promise<void> {
  if (!env.OPENAI_BASE_URL) {
    print(HOW_TO);
    return;
  }
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(OrderTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
  const chatClient = new OpenAIChatClient({
    baseURL: env.OPENAI_BASE_URL,
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    model: env.OPENAI_MODEL || "gpt-4o-mini",
    temperature: 0,
  });
  const agent = factory.createAgent({
    name: "order-support",
    instructions: "You answer questions about orders. Use getOrderStatus to look orders up; never guess a status.",
    chatClient,
  });

  const result = await agent.run("Where is my order? The number is ORD-999, or maybe ORD-12345.", { signal: AbortSignal.timeout(120_000) });

  for (const call of result.calls) print(`${call.tool} [${call.callId}] -> ${call.status}${call.errorCode ? ` ${call.errorCode}` : ""}`);
  print(`status: ${result.status}, model turns: ${result.iterations}, tokens: ${result.usage.totalTokens}`);
  print(`answer: ${result.text}`);
}
