import { OpenAI } from "openai";
import { OpenAI as OpenAIv6 } from "openai-v6";
import { OpenAIChatClient } from "../src/openai-chat-client.js";
import type { OpenAIChatClientOptions } from "../src/openai-chat-client.options.js";
import type { ChatCompletionsServer } from "./chat-completions-server.js";

/** Each supported major of the `openai` SDK (openai 7 needs Node 22+; both run the same suite). */
export const SDKS = [
  ["openai 7", OpenAI],
  ["openai 6", OpenAIv6 as unknown as typeof OpenAI],
] as const;

/** A client over the given SDK major, pointed at the local server. */
export function clientOver(
  Sdk: typeof OpenAI,
  s: ChatCompletionsServer,
  options: Partial<OpenAIChatClientOptions> = {},
): OpenAIChatClient {
  const client = new Sdk({ baseURL: s.baseURL, apiKey: "test", maxRetries: options.maxRetries ?? 2 });
  return new OpenAIChatClient({ client, model: "gpt-test", ...options });
}
