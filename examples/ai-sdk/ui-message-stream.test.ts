// @needlework/ai-sdk's UI-message encoder over real agent runs. It lives here, in a package that depends
// on both, because @needlework/workflows depends on the adapter (its deprecated encoder is this one):
// the adapter's own tests build no agent, so it has no dependency on workflows and there is no cycle.
import { toUiMessageStream, type UiMessageChunk } from "@needlework/ai-sdk";
import { AgentFunction, AgentFunctionGroup, type ToolContext, ToolResult } from "@needlework/core";
import type { AgentEvent } from "@needlework/core/events";
import {
  ScriptedChatClient,
  type ScriptedStep,
  usingAgentFramework,
  toUiMessageStream as deprecatedToUiMessageStream,
} from "@needlework/workflows";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { container } from "tsyringe";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

const SECRET = "ui-message-stream-test-secret-0123456789";
const SYSTEM_CANARY = "system-prompt-canary-7731";

/** What each test makes a tool do. */
const behaviour: { update: (contactId: string) => unknown; post: (signal: AbortSignal) => unknown } = {
  update: () => undefined,
  post: () => undefined,
};

beforeEach(() => {
  behaviour.update = (contactId) => ({ updated: contactId });
  behaviour.post = () => ({ posted: true });
});

@AgentFunctionGroup()
class CrmTools {
  @AgentFunction({
    description: "Updates a contact.",
    input: z.object({ contactId: z.string().describe("Contact id.") }),
  })
  updateContact({ contactId }: { contactId: string }) {
    return behaviour.update(contactId);
  }

  @AgentFunction({ description: "Posts a note.", input: z.object({ note: z.string().describe("The note.") }) })
  postNote(_args: { note: string }, ctx: ToolContext) {
    return behaviour.post(ctx.signal);
  }

  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    requiresApproval: true,
  })
  refund({ orderId }: { orderId: string }) {
    return { refunded: orderId };
  }
}

const RETRY_AT_ONCE = {
  retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
  attemptTimeoutMs: false,
  totalTimeoutMs: false,
  circuitBreaker: false,
} as const;

function agentOf(steps: readonly ScriptedStep[]) {
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(CrmTools)
    .usingResilience(RETRY_AT_ONCE)
    .usingToolResultMiddleware()
    .buildAgentFactory();
  return factory.createAgent({
    name: "crm",
    instructions: `Sync carefully. ${SYSTEM_CANARY}`,
    checkpointSecret: SECRET,
    chatClient: new ScriptedChatClient(steps),
  });
}

/** The AI SDK's own reader (what useChat runs): the message as it stands after the last chunk. */
async function lastMessage(stream: ReadableStream<UiMessageChunk>): Promise<UIMessage> {
  let last: UIMessage | undefined;
  // Our chunk type is the protocol's, written without depending on `ai`: the SDK reads it as its own.
  const chunks = stream as unknown as ReadableStream<UIMessageChunk>;
  for await (const message of readUIMessageStream({ stream: chunks, terminateOnError: true })) last = message;
  if (!last) throw new Error("the stream produced no message");
  return last;
}

async function chunksOf(stream: ReadableStream<UiMessageChunk>): Promise<UiMessageChunk[]> {
  const chunks: UiMessageChunk[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

const SYNC_SCRIPT: ScriptedStep[] = [
  {
    text: "Syncing both.",
    toolCalls: [
      { name: "updateContact", arguments: '{"contactId":"c1"}' },
      { name: "updateContact", arguments: { contactId: "c2" } },
    ],
  },
  { text: "All synced successfully." },
  { text: "c1 is updated; c2 was not found (NOT_FOUND)." },
];

function failC2(): void {
  behaviour.update = (contactId) => {
    if (contactId === "c2") return ToolResult.fail("row c2 missing in tenant 77", { code: "NOT_FOUND" });
    return { updated: contactId };
  };
}

describe("toUiMessageStream", () => {
  it("is read by the AI SDK's readUIMessageStream: text per turn, tool parts ending ok or with the code, data parts", async () => {
    failC2();
    const run = agentOf(SYNC_SCRIPT).stream("Sync c1 and c2", { runId: "run-ui" });
    const message = await lastMessage(toUiMessageStream(run));
    const result = await run.result;
    expect(message.id).toBe("run-ui");
    expect(message.role).toBe("assistant");
    const texts = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
    expect(texts).toEqual(["Syncing both.", "All synced successfully.", result.text]);
    expect(message.parts.filter((p) => p.type === "dynamic-tool")).toEqual([
      expect.objectContaining({
        toolCallId: "call_1_1",
        toolName: "updateContact",
        input: { contactId: "c1" },
        state: "output-available",
        output: expect.objectContaining({ status: "ok" }),
      }),
      expect.objectContaining({
        toolCallId: "call_1_2",
        toolName: "updateContact",
        state: "output-error",
        errorText: expect.stringMatching(/^NOT_FOUND: /),
      }),
    ]);
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(3);
    expect(message.parts.find((p) => p.type === "data-run-health")).toMatchObject({
      data: { turn: 1, health: { tools_failed: 1, blocking_failure: true } },
    });
    expect(message.parts.find((p) => p.type === "data-correction")).toMatchObject({ data: { turn: 2 } });
    expect(message.metadata).toEqual(
      JSON.parse(
        JSON.stringify({ runId: "run-ui", status: result.status, health: result.health, usage: result.usage }),
      ),
    );
    expect(JSON.stringify(message)).not.toContain(SYSTEM_CANARY);
  });

  it("carries retries as data parts", async () => {
    let locked = 1;
    behaviour.post = () =>
      locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : { posted: true };
    const run = agentOf([{ toolCalls: [{ name: "postNote", arguments: { note: "x" } }] }, { text: "Posted." }]);
    const message = await lastMessage(toUiMessageStream(run.stream("post")));
    expect(message.parts.find((p) => p.type === "data-tool-retry")).toMatchObject({
      data: { callId: "call_1_1", tool: "postNote", attempt: 1, errorCode: "LOCKED" },
    });
  });

  it("sends approval-required as { runId, pending }: the signed checkpoint and the messages stay on the server", async () => {
    const run = agentOf([{ toolCalls: [{ name: "refund", arguments: { orderId: "O-9" } }] }]).stream("Refund O-9.");
    const chunks = await chunksOf(toUiMessageStream(run));
    const result = await run.result;
    expect(result.status).toBe("awaiting_approval");
    expect(chunks.find((c) => c.type === "data-approval-required")).toEqual({
      type: "data-approval-required",
      data: { runId: result.runId, pending: [{ callId: "call_1_1", tool: "refund", arguments: { orderId: "O-9" } }] },
    });
    const text = JSON.stringify(chunks);
    expect(text).not.toContain(SYSTEM_CANARY);
    expect(text).not.toContain('"checkpoint"');
    expect(text).not.toContain('"signature"');
    expect(text).not.toContain('"messages"');
  });

  it("ends with abort when the run is cancelled", async () => {
    behaviour.post = untilAborted;
    const controller = new AbortController();
    const run = agentOf([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }]).stream("post", {
      signal: controller.signal,
    });
    const reader = toUiMessageStream(run).getReader();
    const types: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      types.push(next.value.type);
      if (next.value.type === "tool-input-available") controller.abort();
    }
    expect(types.at(-1)).toBe("abort");
    await expect(run.result).rejects.toMatchObject({ name: "AbortError" });
  });

  it("cancelling the stream (the client went away) cancels the run", async () => {
    behaviour.post = untilAborted;
    const run = agentOf([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }]).stream("post");
    const reader = toUiMessageStream(run).getReader();
    while ((await reader.read()).value?.type !== "tool-input-available");
    await reader.cancel();
    await expect(run.result).rejects.toMatchObject({ name: "AbortError" });
  });

  it("the deprecated @needlework/workflows encoder is this one: every kind of chunk a run that ends sends", async () => {
    expect(deprecatedToUiMessageStream).toBe(toUiMessageStream);
    failC2();
    let locked = 1;
    behaviour.post = () => (locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : {});
    const runs = [
      agentOf(SYNC_SCRIPT),
      agentOf([{ toolCalls: [{ name: "postNote", arguments: { note: "x" } }] }, { text: "Posted." }]),
      agentOf([{ toolCalls: [{ name: "refund", arguments: '{"orderId":"O-9"}' }] }]),
    ];
    const seen = new Set<string>();
    for (const agent of runs) {
      // The run's own stream, typed as core's AgentEvent: what the encoder's signature names.
      const events: AsyncIterable<AgentEvent> = agent.stream("Go.");
      for (const chunk of await chunksOf(deprecatedToUiMessageStream(events))) seen.add(chunk.type);
    }
    // The three runs cover every kind of chunk a run that ends can send.
    expect([...seen].sort()).toEqual(
      [
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "tool-input-available",
        "tool-output-available",
        "tool-output-error",
        "data-tool-retry",
        "data-run-health",
        "data-correction",
        "data-approval-required",
        "finish-step",
        "finish",
      ].sort(),
    );
  });
});
