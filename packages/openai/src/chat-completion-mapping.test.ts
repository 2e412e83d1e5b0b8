import { NeedleworkError } from "@needlework/core";
import type { ChatMessage } from "@needlework/core";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { completion } from "../test/chat-completions-server.js";
import { fromChatCompletion, toOpenAIMessages, usageOf } from "./chat-completion-mapping.js";

describe("toOpenAIMessages", () => {
  it("maps every role field by field, keeping tool-call ids and stringifying object arguments", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Sync c1 and c2." },
      {
        role: "assistant",
        content: "Syncing both.",
        toolCalls: [
          { id: "call_a", name: "updateContact", arguments: '{"contactId":"c1"}' },
          { id: "call_b", name: "updateContact", arguments: { contactId: "c2", tags: ["vip"] } },
        ],
      },
      { role: "tool", toolCallId: "call_a", name: "updateContact", content: '{"status":"ok"}' },
      {
        role: "tool",
        toolCallId: "call_b",
        name: "updateContact",
        content: '{"status":"error","error_code":"NOT_FOUND"}',
      },
      {
        role: "user",
        kind: "run_health",
        content: '{"run_health":{"tools_ok":1,"tools_failed":1,"blocking_failure":true}}',
      },
      { role: "assistant", content: "c2 was not found." },
    ];
    expect(toOpenAIMessages(messages)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Sync c1 and c2." },
      {
        role: "assistant",
        content: "Syncing both.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "updateContact", arguments: '{"contactId":"c1"}' } },
          {
            id: "call_b",
            type: "function",
            function: { name: "updateContact", arguments: '{"contactId":"c2","tags":["vip"]}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"status":"ok"}' },
      { role: "tool", tool_call_id: "call_b", content: '{"status":"error","error_code":"NOT_FOUND"}' },
      { role: "user", content: '{"run_health":{"tools_ok":1,"tools_failed":1,"blocking_failure":true}}' },
      { role: "assistant", content: "c2 was not found." },
    ]);
  });

  it("sends null content beside tool calls and an empty string for an empty final turn", () => {
    expect(
      toOpenAIMessages([
        { role: "assistant", toolCalls: [{ id: "x", name: "t", arguments: {} }] },
        { role: "assistant" },
        { role: "assistant", toolCalls: [] },
      ]),
    ).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "x", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "assistant", content: "" },
      { role: "assistant", content: "" },
    ]);
  });
});

describe("fromChatCompletion", () => {
  it("keeps the model's tool-call ids and raw argument text, with usage and finish_reason", () => {
    const response = fromChatCompletion(
      completion({
        id: "chatcmpl-1",
        toolCalls: [
          { id: "call_1", name: "getStock", arguments: '{"sku":"SKU-1"}' },
          { id: "call_2", name: "getStock", arguments: '{"sku": "SKU-2"' },
        ],
        usage: { prompt: 82, completion: 17 },
      }) as ChatCompletion,
    );
    expect(response).toEqual({
      message: {
        toolCalls: [
          { id: "call_1", name: "getStock", arguments: '{"sku":"SKU-1"}' },
          // Malformed JSON is passed on as is: the invoker answers it with INVALID_ARGUMENTS.
          { id: "call_2", name: "getStock", arguments: '{"sku": "SKU-2"' },
        ],
      },
      usage: { inputTokens: 82, outputTokens: 17, totalTokens: 99 },
      finishReason: "tool_calls",
      id: "chatcmpl-1",
      model: "gpt-test-2025-01-01",
    });
  });

  it("returns text with tool calls when the model sends both, and a refusal as text", () => {
    const both = completion({
      id: "c",
      content: "Checking.",
      toolCalls: [{ id: "call_1", name: "t", arguments: "{}" }],
    }) as ChatCompletion;
    expect(fromChatCompletion(both).message).toEqual({
      content: "Checking.",
      toolCalls: [{ id: "call_1", name: "t", arguments: "{}" }],
    });
    const refused = completion({ id: "c", usage: null }) as ChatCompletion;
    refused.choices[0]!.message.refusal = "I can't help with that.";
    expect(fromChatCompletion(refused)).toEqual({
      message: { content: "I can't help with that." },
      finishReason: "stop",
      id: "c",
      model: "gpt-test-2025-01-01",
    });
  });

  it("passes a custom-tool call on by name so the invoker can answer it", () => {
    const custom = completion({ id: "c" }) as ChatCompletion;
    custom.choices[0]!.message.tool_calls = [
      { id: "call_c", type: "custom", custom: { name: "grep", input: "needle" } },
    ];
    expect(fromChatCompletion(custom).message.toolCalls).toEqual([{ id: "call_c", name: "grep", arguments: "needle" }]);
  });

  it("throws OPENAI_EMPTY_COMPLETION when there is no choice", () => {
    const empty = { ...(completion({ id: "chatcmpl-empty" }) as ChatCompletion), choices: [] };
    let error: unknown;
    try {
      fromChatCompletion(empty);
    } catch (e) {
      error = e;
    }
    expect(NeedleworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "OPENAI_EMPTY_COMPLETION",
      message: expect.stringContaining("chatcmpl-empty"),
    });
  });
});

describe("usageOf", () => {
  it("maps prompt/completion/total tokens and sums a missing total", () => {
    expect(usageOf({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 })).toEqual({
      inputTokens: 5,
      outputTokens: 3,
      totalTokens: 8,
    });
    expect(usageOf({ prompt_tokens: 5, completion_tokens: 3 } as ChatCompletion["usage"])).toEqual({
      inputTokens: 5,
      outputTokens: 3,
      totalTokens: 8,
    });
    expect(usageOf(undefined)).toBeUndefined();
  });
});
