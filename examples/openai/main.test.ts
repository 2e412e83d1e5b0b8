import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChatCompletionsServer,
  completion,
  startChatCompletionsServer,
} from "../../packages/openai/test/chat-completions-server.js";
import { responseObject } from "../../packages/openai/test/wire-format.js";
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
      {
        body: completion({
          id: "c1",
          toolCalls: [{ id: "call_1", name: "getOrderStatus", arguments: '{"orderId":"ORD-999"}' }],
          usage: { prompt: 50, completion: 10 },
        }),
      },
      {
        body: completion({
          id: "c2",
          toolCalls: [{ id: "call_2", name: "getOrderStatus", arguments: '{"orderId":"ORD-12345"}' }],
          usage: { prompt: 90, completion: 10 },
        }),
      },
      {
        body: completion({
          id: "c3",
          content: "ORD-12345 has shipped with DHL; ORD-999 does not exist.",
          usage: { prompt: 130, completion: 20 },
        }),
      },
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

  it("prints what to check, not a stack, when the server refuses the connection", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const lines: string[] = [];
    const ok = await runOpenAIExample(
      { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MAX_RETRIES: "0" },
      (line) => lines.push(line),
    );
    expect(ok).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^OPENAI_CONNECTION_FAILED: Could not connect to http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)`,
      ),
    );
    expect(lines[0]).toContain("Check that the server is running");
    expect(lines[0]).not.toMatch(/\n\s+at /);
  });

  it("runs over the Responses API with OPENAI_API=responses", async () => {
    server = await startChatCompletionsServer([
      {
        body: responseObject({
          id: "resp_1",
          text: "Which order number should I look up?",
          usage: { input: 40, output: 8 },
        }),
      },
    ]);
    const lines: string[] = [];
    await runOpenAIExample({ OPENAI_BASE_URL: server.baseURL, OPENAI_API: "responses" }, (line) => lines.push(line));
    expect(lines).toEqual([
      "status: completed, model turns: 1, tokens: 48",
      "answer: Which order number should I look up?",
    ]);
    expect(server.requests[0]!.url).toBe("/v1/responses");
  });
});
