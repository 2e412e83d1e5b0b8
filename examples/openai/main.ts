import "reflect-metadata";
import { NeedleworkError } from "@needlework/core";
import { type OpenAIApi, OpenAIChatClient } from "@needlework/openai";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { OrderTools } from "../order-lookup/order-tools.js";

const HOW_TO = `This example runs a needlework agent against an OpenAI-compatible chat-completions server.
Set OPENAI_BASE_URL (and OPENAI_MODEL, and OPENAI_API_KEY when the server needs one), then run it again.
OPENAI_API=responses uses OpenAI's Responses API instead; OPENAI_MAX_RETRIES bounds the SDK's retries (default 2).


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
  readonly OPENAI_API?: string | undefined;
  readonly OPENAI_MAX_RETRIES?: string | undefined;
}

/** A failure the person running the example can act on: its message, never a stack. */
function describeError(error: unknown): string | undefined {
  if (NeedleworkError.isInstance(error)) return `${error.code}: ${error.message}`;
  // The SDK's HTTP errors (401 bad key, 404 unknown model, 429, 5xx) carry a status and a readable message.
  const status = (error as { status?: unknown } | undefined)?.status;
  if (typeof status === "number" && error instanceof Error)
    return `HTTP ${status} from the model server: ${error.message}`;
  return undefined;
}

/**
 * Asks a real model where an order is, with the order tools behind the recommended pipeline. The
 * customer's first order id does not exist, so the model reads an ORDER_NOT_FOUND envelope and
 * has to recover. Without OPENAI_BASE_URL it prints what to set and returns. When the server
 * cannot be reached or does not answer as an OpenAI server, it prints what happened and what to
 * check, and resolves `false`.
 */
export async function runOpenAIExample(
  env: OpenAIExampleEnv = process.env,
  print: (line: string) => void = console.log,
): Promise<boolean> {
  if (!env.OPENAI_BASE_URL) {
    print(HOW_TO);
    return true;
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
    ...(env.OPENAI_API ? { api: env.OPENAI_API as OpenAIApi } : {}),
    ...(env.OPENAI_MAX_RETRIES ? { maxRetries: Number(env.OPENAI_MAX_RETRIES) } : {}),
  });
  const agent = factory.createAgent({
    name: "order-support",
    instructions: "You answer questions about orders. Use getOrderStatus to look orders up; never guess a status.",
    chatClient,
  });

  let result;
  try {
    result = await agent.run("Where is my order? The number is ORD-999, or maybe ORD-12345.", {
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    const message = describeError(error);
    if (message === undefined) throw error;
    print(message);
    return false;
  }

  for (const call of result.calls)
    print(`${call.tool} [${call.callId}] -> ${call.status}${call.errorCode ? ` ${call.errorCode}` : ""}`);
  print(`status: ${result.status}, model turns: ${result.iterations}, tokens: ${result.usage.totalTokens}`);
  print(`answer: ${result.text}`);
  return true;
}
