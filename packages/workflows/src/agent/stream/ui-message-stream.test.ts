import { ToolResult } from "@needlework/core";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { harness, HttpError, untilAborted } from "../../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../scripted-chat-client.js";
import { toUiMessageStream } from "./ui-message-stream.js";

/** The AI SDK's own reader (what useChat runs): the message as it stands after the last chunk. */
async function lastMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return last!;
}

describe("toUiMessageStream", () => {
  it("is read by the AI SDK's readUIMessageStream: text per turn, tool parts ending ok or with the code, data parts", async () => {
    const h = harness();
    h.world.on("updateContact", ({ contactId }) => {
      if (contactId === "c2") throw new HttpError(404, "row c2 missing in tenant 77");
      return { updated: contactId };
    });
    const { agent } = h.agent([
      {
        text: "Syncing both.",
        toolCalls: [
          { name: "updateContact", arguments: '{"contactId":"c1"}' },
          { name: "updateContact", arguments: { contactId: "c2" } },
        ],
      },
      { text: "All synced successfully." },
      { text: "c1 is updated; c2 was not found (NOT_FOUND)." },
    ]);
    const run = agent.stream("Sync c1 and c2", { runId: "run-ui" });
    const message = await lastMessage(toUiMessageStream(run));
    const result = await run.result;
    expect(message.id).toBe("run-ui");
    expect(message.role).toBe("assistant");
    const texts = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
    expect(texts).toEqual(["Syncing both.", "All synced successfully.", result.text]);
    const tools = message.parts.filter((p) => p.type === "dynamic-tool");
    expect(tools).toEqual([
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
    expect(JSON.stringify(message)).not.toContain("tenant 77");
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
  });

  it("carries retries as data parts", async () => {
    let locked = 1;
    const { world, factory } = diagnosticsHarness((b) => b.usingResilience(RETRY_AT_ONCE).usingToolResultMiddleware());
    world.on("postNote", () =>
      locked-- > 0 ? ToolResult.fail("locked", { code: "LOCKED", transient: true }) : { posted: true },
    );
    const agent = factory.createAgent({
      name: "r",
      instructions: "",
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "postNote", arguments: { note: "x" } }] },
        { text: "Posted." },
      ]),
    });
    const message = await lastMessage(toUiMessageStream(agent.stream("post")));
    expect(message.parts.find((p) => p.type === "data-tool-retry")).toMatchObject({
      data: { callId: "call_1_1", tool: "postNote", attempt: 1, errorCode: "LOCKED" },
    });
  });

  it("ends with abort when the run is cancelled, and cancelling the stream cancels the run", async () => {
    const h = harness();
    h.world.on("postNote", (_args, ctx) => untilAborted(ctx.signal));
    const controller = new AbortController();
    const run = h
      .agent([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }])
      .agent.stream("post", { signal: controller.signal });
    const reader = toUiMessageStream(run).getReader();
    const chunks: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value.type);
      if (value.type === "tool-input-available") controller.abort();
    }
    expect(chunks.at(-1)).toBe("abort");
    await expect(run.result).rejects.toMatchObject({ name: "AbortError" });

    const second = harness();
    second.world.on("postNote", (_args, ctx) => untilAborted(ctx.signal));
    const run2 = second.agent([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }]).agent.stream("post");
    const reader2 = toUiMessageStream(run2).getReader();
    while ((await reader2.read()).value?.type !== "tool-input-available");
    await reader2.cancel();
    await expect(run2.result).rejects.toMatchObject({ name: "AbortError" });
  });
});
