import { afterEach, describe, expect, it } from "vitest";
import { type ChatCompletionsServer, completion, startChatCompletionsServer } from "../../packages/openai/test/chat-completions-server.js";
import { runOpenAIExample } from "./main.js";

let server: ChatCompletionsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("examples/openai", () => {
  it("explains what to set when OPENAI_BASE_URL is not set", async () => {
    const lines: string[] = [];
    await runOpenAIExample({}, (line) => lines.push(line));
    expect(lines.join("\n")).toMatch(/Set OPENAI_BASE_URL/);
    expect(lines.join("\n")).toContain("http://localhost:11434/v1");
  });

  it("runs the agent against the server at OPENAI_BASE_URL", async () => {
    server = await startChatCompletionsServer([
      { body: completion({ id: "c1", toolCalls: [{ id: "call_1", name: "getOrderStatus", arguments: '{"orderId":"ORD-999"}' }], usage: { prompt: 50, completion: 10 } }) },
      { body: completion({ id: "c2", toolCalls: [{ id: "call_2", name: "getOrderStatus", arguments: '{"orderId":"ORD-12345"}' }], usage: { prompt: 90, completion: 10 } }) },
      { body: completion({ id: "c3", content: "ORD-12345 has shipped with DHL; ORD-999 does not exist.", usage: { prompt: 130, completion: 20 } }) },
    ]);
    const lines: string[] = [];
    await runOpenAIExample({ OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: "llama3.1" }, (line) => lines.push(line));
    expect(lines).toEqual([
      "getOrderStatus [call_1] -> error ORDER_NOT_FOUND",
      "getOrderStatus [call_2] -> ok",
      "status: completed_with_failures, model turns: 3, tokens: 310",
      "answer: ORD-12345 has shipped with DHL; ORD-999 does not exist.",
    ]);
    expect(server.requests[0]!.body).toMatchObject({ model: "llama3.1", temperature: 0 });
  });
});
