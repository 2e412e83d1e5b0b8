// The encoder over event streams written by hand, typed as core's AgentEvent. Its tests over real agent
// runs (read back by the AI SDK's readUIMessageStream) are in examples/ai-sdk/ui-message-stream.test.ts:
// building an agent needs @needlework/workflows, which depends on this package.
import type { AgentEvent, AgentRunResult } from "@needlework/core/events";
import { describe, expect, expectTypeOf, it } from "vitest";
import { toUiMessageStream, type UiMessageChunk, type UiMessageSourceEvent } from "./index.js";
import * as encoderEntry from "./ui-message-stream.js";

const SECRET_TEXT = "database password hunter2";

async function chunksOf(stream: ReadableStream<UiMessageChunk>): Promise<UiMessageChunk[]> {
  const chunks: UiMessageChunk[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const health = { tools_ok: 1, tools_failed: 0, tools_not_called: 0, blocking_failure: false };
const result: AgentRunResult = {
  status: "completed",
  runId: "r1",
  text: "Shipped.",
  messages: [{ role: "system", content: `You are careful. ${SECRET_TEXT}` }],
  calls: [],
  health,
  silentFailure: false,
  stepsToRecovery: undefined,
  recoveries: [],
  iterations: 1,
  usage,
};

describe("toUiMessageStream over AgentEvents", () => {
  it("takes an AgentEvent stream and still accepts the older structural UiMessageSourceEvent", () => {
    expectTypeOf(toUiMessageStream).toBeCallableWith((async function* (): AsyncGenerator<AgentEvent> {})());
    expectTypeOf(toUiMessageStream).toBeCallableWith((async function* (): AsyncGenerator<UiMessageSourceEvent> {})());
    expectTypeOf<AgentEvent>().toExtend<UiMessageSourceEvent>();
    expect(encoderEntry.toUiMessageStream).toBe(toUiMessageStream);
  });

  it("maps a run's events to chunks; run-end sends { runId, status, health, usage } and nothing else", async () => {
    async function* events(): AsyncGenerator<AgentEvent> {
      yield { type: "run-start", runId: "r1", agent: "a" };
      yield { type: "turn-start", turn: 1 };
      yield { type: "tool-call", turn: 1, callId: "c1", tool: "getOrder", arguments: '{"id":"O-1"}' };
      yield {
        type: "tool-result",
        turn: 1,
        callId: "c1",
        tool: "getOrder",
        outcome: {
          status: "error",
          retriable: false,
          errorCode: "NOT_FOUND",
          message: "No order O-1.",
          metadata: { tool: "getOrder", callId: "c1", attempts: 1, latencyMs: 2 },
        },
      };
      yield { type: "text-delta", turn: 1, delta: "Shipped." };
      yield { type: "turn-end", turn: 1, usage };
      yield { type: "run-end", result };
    }
    const chunks = await chunksOf(toUiMessageStream(events()));
    expect(chunks).toEqual([
      { type: "start", messageId: "r1" },
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "getOrder", input: { id: "O-1" }, dynamic: true },
      { type: "tool-output-error", toolCallId: "c1", errorText: "NOT_FOUND: No order O-1.", dynamic: true },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: "Shipped." },
      { type: "text-end", id: "text-1" },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop", messageMetadata: { runId: "r1", status: "completed", health, usage } },
    ]);
    expect(JSON.stringify(chunks)).not.toContain(SECRET_TEXT);
  });

  it("a failed run ends with a fixed error text, never the exception's", async () => {
    async function* events(): AsyncGenerator<AgentEvent> {
      yield { type: "run-start", runId: "r1", agent: "a" };
      throw new Error(`${SECRET_TEXT} at the system prompt`);
    }
    expect(await chunksOf(toUiMessageStream(events()))).toEqual([
      { type: "start", messageId: "r1" },
      { type: "error", errorText: "The run failed." },
    ]);
  });

  it("an event of a type it does not know sends nothing", async () => {
    async function* events(): AsyncGenerator<AgentEvent> {
      yield { type: "run-start", runId: "r1", agent: "a" };
      yield { type: "forged\n\ndata: {}", turn: 1 } as unknown as AgentEvent;
      yield { type: "turn-start", turn: 1 };
    }
    expect(await chunksOf(toUiMessageStream(events()))).toEqual([
      { type: "start", messageId: "r1" },
      { type: "start-step" },
    ]);
  });
});
