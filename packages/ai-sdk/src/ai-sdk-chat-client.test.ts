import type { ChatRequest, ChatStreamPart } from "@needlework/core";
import { createToolInvoker } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { ShopTools } from "../test/shop-tools.js";
import { loadAiSdkMajor, type AiSdkMajor } from "../test/ai-sdk-majors.js";
import { AiSdkChatClient, AiSdkChatError } from "./ai-sdk-chat-client.js";
import type { AiSdkLanguageModel } from "./ai-sdk-language-model.js";

const definitions = createToolInvoker(container.createChildContainer(), { functions: [ShopTools] }).definitions;
const lookup = { toolCalls: [{ id: "call-1", name: "getOrderStatus", input: '{"orderId":"ORD-1"}' }] };

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const out: ChatStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

function describeChatClient(sdk: AiSdkMajor): void {
  describe(`AiSdkChatClient over a LanguageModel${sdk.spec.toUpperCase()} (AI SDK ${sdk.major} mock)`, () => {
    const clientOf = (model: object) => new AiSdkChatClient(model as AiSdkLanguageModel);

    it("sends messages and tools in the spec's shape and maps tool calls, usage and finish reason", async () => {
      const scripted = sdk.scriptedModel([lookup], "anthropic.messages");
      const client = clientOf(scripted.model);
      expect(client.provider).toBe("anthropic");
      const request: ChatRequest = {
        messages: [
          { role: "system", content: "You look up orders." },
          { role: "user", content: "Where is ORD-1?" },
          {
            role: "assistant",
            content: "Looking.",
            toolCalls: [{ id: "c0", name: "getOrderStatus", arguments: '{"orderId":"ORD-0"}' }],
          },
          { role: "tool", toolCallId: "c0", name: "getOrderStatus", content: '{"status":"error"}' },
        ],
        tools: definitions,
      };
      const response = await client.complete(request);
      expect(response).toEqual({
        message: { toolCalls: [{ id: "call-1", name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' }] },
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        finishReason: "tool_calls",
      });
      const sent = scripted.calls()[0];
      expect(sent?.prompt).toEqual([
        { role: "system", content: "You look up orders." },
        { role: "user", content: [{ type: "text", text: "Where is ORD-1?" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "tool-call", toolCallId: "c0", toolName: "getOrderStatus", input: { orderId: "ORD-0" } },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c0",
              toolName: "getOrderStatus",
              output: { type: "text", value: '{"status":"error"}' },
            },
          ],
        },
      ]);
      expect(sent?.tools?.find((t) => t.name === "getOrderStatus")).toEqual({
        type: "function",
        name: "getOrderStatus",
        description: "Looks up an order by ID.",
        inputSchema: definitions.find((d) => d.name === "getOrderStatus")?.parameters,
      });
    });

    it("stream() yields text deltas and one finish part", async () => {
      const client = clientOf(sdk.scriptedModel([{ text: "ORD-1 has shipped." }]).model);
      const parts = await collect(client.stream({ messages: [{ role: "user", content: "ORD-1?" }], tools: [] }));
      expect(
        parts
          .filter((p) => p.type === "text-delta")
          .map((p) => (p.type === "text-delta" ? p.delta : ""))
          .join(""),
      ).toBe("ORD-1 has shipped.");
      expect(parts.at(-1)).toEqual({
        type: "finish",
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      });
      expect(parts.filter((p) => p.type === "finish")).toHaveLength(1);
    });

    it("stream() yields tool calls", async () => {
      const client = clientOf(sdk.scriptedModel([lookup]).model);
      const parts = await collect(
        client.stream({ messages: [{ role: "user", content: "ORD-1?" }], tools: definitions }),
      );
      expect(parts).toContainEqual({
        type: "tool-call",
        toolCall: { id: "call-1", name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' },
      });
    });
  });
}

for (const major of [5, 6, 7] as const) {
  const sdk = await loadAiSdkMajor(major);
  if (sdk) describeChatClient(sdk);
}

describe("AiSdkChatClient errors", () => {
  const streaming = (parts: unknown[]): AiSdkLanguageModel => ({
    specificationVersion: "v3",
    provider: "ollama.chat",
    modelId: "llama3.1",
    doGenerate: () => Promise.reject(new Error("unused")),
    doStream: async () => ({
      stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p as never)), c.close()) }),
    }),
  });
  const request: ChatRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

  it("a stream that ends without finish throws AI_SDK_STREAM_INCOMPLETE", async () => {
    const client = new AiSdkChatClient(streaming([{ type: "text-delta", id: "1", delta: "Hel" }]));
    expect(client.provider).toBe("ollama");
    await expect(collect(client.stream(request))).rejects.toMatchObject({
      name: "AiSdkChatError",
      code: "AI_SDK_STREAM_INCOMPLETE",
    });
  });

  it("an error part throws AI_SDK_STREAM_ERROR with the provider's error as cause", async () => {
    const cause = new Error("overloaded");
    const error = await collect(
      new AiSdkChatClient(streaming([{ type: "error", error: cause }])).stream(request),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiSdkChatError);
    expect(error).toMatchObject({ code: "AI_SDK_STREAM_ERROR", cause });
  });

  it("a model id string is refused with a message saying what to pass", () => {
    expect(() => new AiSdkChatClient("openai/gpt-4o" as unknown as AiSdkLanguageModel)).toThrow(
      /not a model id string/,
    );
  });
});
