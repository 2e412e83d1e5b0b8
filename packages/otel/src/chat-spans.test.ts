import type { ChatClient, ChatStreamPart } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { memoryTracer } from "../test/memory-tracer.js";
import { openTelemetry } from "./open-telemetry.js";
import { TRACE_ATTRIBUTES as A } from "./trace-attributes.js";

const otel = () => memoryTracer();

/** What the `openai` SDK throws for an HTTP 500 (an APIError with `status`, `type` in its body). */
class ServerError extends Error {
  readonly status = 500;
  readonly type = "server_error";
}

describe("traced chat streams", () => {
  function streamingClient(parts: ChatStreamPart[], failAfter?: Error): ChatClient & { model: string } {
    return {
      provider: "acme",
      model: "acme-large",
      complete: () => Promise.reject(new Error("not used")),
      async *stream() {
        for (const part of parts) yield part;
        if (failAfter) throw failAfter;
      },
    };
  }

  it("a streamed model call gets one chat span with the finish part's usage, model and id", async () => {
    const { tracer, named } = otel();
    const tracing = openTelemetry({ tracer });
    await tracing.ready();
    const client = tracing.wrapChatClient(
      streamingClient([
        { type: "text-delta", delta: "Hi" },
        { type: "tool-call", toolCall: { id: "c1", name: "t", arguments: "{}" } },
        {
          type: "finish",
          finishReason: "tool_calls",
          usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 },
          id: "chatcmpl-9",
          model: "acme-large-1",
        },
      ]),
    );
    expect(client.provider).toBe("acme");
    const parts: ChatStreamPart[] = [];
    for await (const part of client.stream!({ messages: [], tools: [] })) parts.push(part);
    expect(parts).toHaveLength(3);
    expect(named("chat acme-large")[0]!.attributes).toMatchObject({
      [A.providerName]: "acme",
      [A.chatToolCalls]: 1,
      [A.inputTokens]: 4,
      [A.outputTokens]: 3,
      [A.finishReasons]: ["tool_calls"],
      [A.responseId]: "chatcmpl-9",
      [A.responseModel]: "acme-large-1",
    });
  });

  it("a stream that fails marks its span with the error; one the consumer leaves is ended CANCELLED", async () => {
    const { tracer, named } = otel();
    const tracing = openTelemetry({ tracer });
    await tracing.ready();
    const failing = tracing.wrapChatClient(
      streamingClient([{ type: "text-delta", delta: "Hi" }], new ServerError("503")),
    );
    await expect(
      (async () => {
        for await (const _ of failing.stream!({ messages: [], tools: [] })) void _;
      })(),
    ).rejects.toBeInstanceOf(ServerError);
    let closed = false;
    const left = tracing.wrapChatClient(<ChatClient & { model: string }>{
      model: "other",
      complete: () => Promise.reject(new Error("not used")),
      async *stream() {
        try {
          yield { type: "text-delta", delta: "Hi" } as const;
          yield { type: "text-delta", delta: " there" } as const;
        } finally {
          closed = true;
        }
      },
    });
    for await (const _ of left.stream!({ messages: [], tools: [] })) break;
    expect(closed).toBe(true);
    expect(named("chat acme-large")[0]!.attributes[A.errorType]).toBe("500");
    expect(named("chat other")[0]!.attributes[A.errorType]).toBe("CANCELLED");
  });
});
