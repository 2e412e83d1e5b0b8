import { type ChatStreamPart, toOpenAITools } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { useChatCompletionsServer } from "../test/chat-completions-server.js";
import { Warehouse, WarehouseTools } from "../test/fixtures.js";
import { clientOver, SDKS } from "../test/sdks.js";
import { responseEvents, responseObject } from "../test/wire-format.js";
import { fromResponse, toResponsesTools } from "./responses-mapping.js";

const serve = useChatCompletionsServer();

const REQUEST = { messages: [{ role: "user" as const, content: "Where is ORD-1?" }], tools: [] };

describe.each(SDKS)("OpenAIChatClient with api: 'responses' over %s", (_, Sdk) => {
  it("drives an agent run through POST /v1/responses: input items, flat tools, function calls and their outputs, usage", async () => {
    const s = await serve(
      {
        body: responseObject({
          id: "resp_1",
          calls: [{ callId: "call_stock", name: "getStock", arguments: '{"sku":"SKU-1"}' }],
          usage: { input: 90, output: 12 },
        }),
      },
      { body: responseObject({ id: "resp_2", text: "SKU-1 has 7 units on hand.", usage: { input: 130, output: 9 } }) },
    );
    const factory = usingAgentFramework(
      container.createChildContainer().register(Warehouse, { useValue: new Warehouse() }),
    )
      .addAgentFunctions(WarehouseTools)
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const chatClient = clientOver(Sdk, s, { api: "responses", maxTokens: 300, parallelToolCalls: false });
    const agent = factory.createAgent({ name: "warehouse", instructions: "You manage stock.", chatClient });

    const result = await agent.run("How many SKU-1?");

    expect(result).toMatchObject({
      status: "completed",
      text: "SKU-1 has 7 units on hand.",
      usage: { inputTokens: 220, outputTokens: 21, totalTokens: 241 },
    });
    expect(s.requests.map((r) => r.url)).toEqual(["/v1/responses", "/v1/responses"]);
    const tools = toResponsesTools(toOpenAITools(factory.tools.definitions));
    expect(s.requests[0]!.body).toEqual({
      model: "gpt-test",
      input: [
        { role: "system", content: "You manage stock." },
        { role: "user", content: "How many SKU-1?" },
      ],
      tools,
      parallel_tool_calls: false,
      max_output_tokens: 300,
    });
    expect(tools).toContainEqual({
      type: "function",
      name: "getStock",
      description: "Reads the stock level of a product.",
      parameters: {
        type: "object",
        properties: { sku: { type: "string", description: "Product SKU, like 'SKU-1'." } },
        required: ["sku"],
        additionalProperties: false,
      },
      strict: true,
    });
    const input = s.requests[1]!.body["input"] as Record<string, unknown>[]; // a Responses API body: the fake server types Chat Completions
    expect(input.slice(2, 4)).toEqual([
      { type: "function_call", call_id: "call_stock", name: "getStock", arguments: '{"sku":"SKU-1"}' },
      { type: "function_call_output", call_id: "call_stock", output: expect.any(String) },
    ]);
    expect(JSON.parse(String(input[3]!.output))).toMatchObject({ status: "ok", data: { sku: "SKU-1", onHand: 7 } });
  });

  it("streams output text deltas, then the finish part with usage from response.completed", async () => {
    const final = responseObject({ id: "resp_s", text: "ORD-1 has shipped.", usage: { input: 20, output: 6 } });
    const s = await serve({ sse: responseEvents(final, ["ORD-1 ", "has shipped."]), events: true });
    const parts: ChatStreamPart[] = [];
    for await (const part of clientOver(Sdk, s, { api: "responses" }).stream(REQUEST)) parts.push(part);
    expect(parts).toEqual([
      { type: "text-delta", delta: "ORD-1 " },
      { type: "text-delta", delta: "has shipped." },
      {
        type: "finish",
        finishReason: "stop",
        usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 },
        id: "resp_s",
        model: "gpt-test-2025-01-01",
      },
    ]);
    expect(s.requests[0]!.body).toMatchObject({ stream: true, input: [{ role: "user", content: "Where is ORD-1?" }] });
  });

  it("streams function calls whole from the completed response", async () => {
    const final = responseObject({
      id: "resp_t",
      calls: [{ callId: "call_9", name: "getStock", arguments: '{"sku":"SKU-9"}' }],
      usage: { input: 5, output: 5 },
    });
    const s = await serve({ sse: responseEvents(final, []), events: true });
    const parts: ChatStreamPart[] = [];
    for await (const part of clientOver(Sdk, s, { api: "responses" }).stream(REQUEST)) parts.push(part);
    expect(parts).toEqual([
      { type: "tool-call", toolCall: { id: "call_9", name: "getStock", arguments: '{"sku":"SKU-9"}' } },
      {
        type: "finish",
        finishReason: "tool_calls",
        usage: { inputTokens: 5, outputTokens: 5, totalTokens: 10 },
        id: "resp_t",
        model: "gpt-test-2025-01-01",
      },
    ]);
  });

  it("a Responses stream cut off before response.completed throws OPENAI_STREAM_INTERRUPTED, with no finish part", async () => {
    const final = responseObject({ id: "resp_cut", calls: [{ callId: "call_1", name: "getStock", arguments: "{}" }] });
    const s = await serve({ sse: responseEvents(final, ["Checking "]).slice(0, 2), events: true, end: "close" });
    const parts: ChatStreamPart[] = [];
    const error = await (async () => {
      for await (const part of clientOver(Sdk, s, { api: "responses" }).stream(REQUEST)) parts.push(part);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "OPENAI_STREAM_INTERRUPTED" });
    expect(parts).toEqual([{ type: "text-delta", delta: "Checking " }]);
  });
});

describe("fromResponse", () => {
  it("maps an incomplete response to finish reason 'length', refusals to text, and keeps id and model", () => {
    const response = responseObject({
      id: "resp_x",
      text: "Partial",
      status: "incomplete",
      incompleteReason: "max_output_tokens",
    });
    expect(fromResponse(response as never)).toEqual({
      message: { content: "Partial" },
      finishReason: "length",
      id: "resp_x",
      model: "gpt-test-2025-01-01",
    });
    const refused = {
      ...responseObject({ id: "resp_r" }),
      output: [
        {
          type: "message",
          id: "m",
          role: "assistant",
          status: "completed",
          content: [{ type: "refusal", refusal: "I can't help with that." }],
        },
      ],
    };
    expect(fromResponse(refused as never).message).toEqual({ content: "I can't help with that." });
  });
});
