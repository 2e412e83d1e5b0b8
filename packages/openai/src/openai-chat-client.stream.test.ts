import { type ChatStreamPart, isAbortError } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { useChatCompletionsServer } from "../test/chat-completions-server.js";
import { clientOver, SDKS } from "../test/sdks.js";
import { chunk } from "../test/wire-format.js";
import { OpenAIResponseError } from "./openai-response-error.js";

const serve = useChatCompletionsServer();

const REQUEST = { messages: [{ role: "user" as const, content: "Where is ORD-1?" }], tools: [] };

/** Reads a stream to its end, keeping the parts it yielded before it threw. */
async function drain(stream: AsyncIterable<ChatStreamPart>): Promise<{ parts: ChatStreamPart[]; error: unknown }> {
  const parts: ChatStreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  }
}

describe.each(SDKS)("OpenAIChatClient.stream() over chat completions with %s", (_, Sdk) => {
  it("yields text deltas as they arrive, then one finish part with the usage", async () => {
    const s = await serve({
      sse: [
        chunk({ role: true, content: "" }),
        chunk({ content: "ORD-1 " }),
        chunk({ content: "has " }),
        chunk({ content: "shipped." }),
        chunk({ finishReason: "stop" }),
        chunk({ usage: { prompt: 21, completion: 5 } }),
      ],
    });
    const { parts, error } = await drain(clientOver(Sdk, s, { temperature: 0 }).stream(REQUEST));
    expect(error).toBeUndefined();
    expect(parts).toEqual([
      { type: "text-delta", delta: "ORD-1 " },
      { type: "text-delta", delta: "has " },
      { type: "text-delta", delta: "shipped." },
      {
        type: "finish",
        finishReason: "stop",
        usage: { inputTokens: 21, outputTokens: 5, totalTokens: 26 },
        id: "chatcmpl-s1",
        model: "gpt-test-2025-01-01",
      },
    ]);
    expect(s.requests[0]!.body).toEqual({
      model: "gpt-test",
      messages: REQUEST.messages,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("assembles tool-call argument fragments by index and yields each call whole before the finish part", async () => {
    const s = await serve({
      sse: [
        chunk({ role: true, toolCalls: [{ index: 0, id: "call_a", name: "getStock", arguments: "" }] }),
        chunk({ toolCalls: [{ index: 0, arguments: '{"sku":' }] }),
        chunk({ toolCalls: [{ index: 1, id: "call_b", name: "reserve", arguments: '{"sku":"SKU-1",' }] }),
        chunk({ toolCalls: [{ index: 0, arguments: '"SKU-1"}' }] }),
        chunk({ toolCalls: [{ index: 1, arguments: '"quantity":2}' }] }),
        chunk({ finishReason: "tool_calls" }),
        chunk({ usage: { prompt: 40, completion: 30 } }),
      ],
    });
    const { parts, error } = await drain(clientOver(Sdk, s).stream(REQUEST));
    expect(error).toBeUndefined();
    expect(parts).toEqual([
      { type: "tool-call", toolCall: { id: "call_a", name: "getStock", arguments: '{"sku":"SKU-1"}' } },
      { type: "tool-call", toolCall: { id: "call_b", name: "reserve", arguments: '{"sku":"SKU-1","quantity":2}' } },
      {
        type: "finish",
        finishReason: "tool_calls",
        usage: { inputTokens: 40, outputTokens: 30, totalTokens: 70 },
        id: "chatcmpl-s1",
        model: "gpt-test-2025-01-01",
      },
    ]);
  });

  it.each(["close", "destroy"] as const)(
    "a stream cut off mid-way (%s) throws OPENAI_STREAM_INTERRUPTED and yields no tool call or finish",
    async (end) => {
      const s = await serve({
        sse: [
          chunk({ role: true, content: "Reserving " }),
          chunk({ toolCalls: [{ index: 0, id: "call_a", name: "reserve", arguments: '{"sku":"SK' }] }),
        ],
        end,
      });
      const { parts, error } = await drain(clientOver(Sdk, s).stream(REQUEST));
      expect(parts).toEqual([{ type: "text-delta", delta: "Reserving " }]);
      expect(error).toBeInstanceOf(OpenAIResponseError);
      expect(error).toMatchObject({ code: "OPENAI_STREAM_INTERRUPTED", baseURL: s.baseURL });
      expect((error as Error).message).toContain(`from ${s.baseURL} ended before the model finished its turn`);
      expect((error as Error).message).toContain("server's logs");
    },
  );

  it("an abort mid-stream rejects with the AbortError and the server sees the connection closed", async () => {
    const s = await serve({ sse: [chunk({ role: true, content: "Let me " })], end: "hang" });
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    const reading = (async () => {
      for await (const part of clientOver(Sdk, s).stream({ ...REQUEST, signal: controller.signal })) {
        parts.push(part);
        controller.abort();
      }
    })();
    const error = await reading.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(parts).toEqual([{ type: "text-delta", delta: "Let me " }]);
    await s.whenClosedEarly(1);
    expect(s.requests[0]!.closedEarly).toBe(true);
  });

  it("a consumer that breaks out of the loop closes the connection", async () => {
    const s = await serve({ sse: [chunk({ role: true, content: "Let me " })], end: "hang" });
    for await (const part of clientOver(Sdk, s).stream(REQUEST)) {
      expect(part).toEqual({ type: "text-delta", delta: "Let me " });
      break;
    }
    await s.whenClosedEarly(1);
  });

  it("an HTML page instead of an event stream is OPENAI_NOT_JSON, naming the base URL and the proxy", async () => {
    const s = await serve({
      contentType: "text/html; charset=utf-8",
      raw: "<html><body>Sign in to continue</body></html>",
    });
    const { parts, error } = await drain(clientOver(Sdk, s).stream(REQUEST));
    expect(parts).toEqual([]);
    expect(error).toMatchObject({ code: "OPENAI_NOT_JSON" });
    expect((error as Error).message).toContain(
      `The server at ${s.baseURL} answered the chat-completions request with 'text/html' instead of an event stream`,
    );
  });

  it("an already aborted signal sends nothing", async () => {
    const s = await serve({ sse: [] });
    const { error } = await drain(clientOver(Sdk, s).stream({ ...REQUEST, signal: AbortSignal.abort() }));
    expect(isAbortError(error)).toBe(true);
    expect(s.requests).toHaveLength(0);
  });
});
