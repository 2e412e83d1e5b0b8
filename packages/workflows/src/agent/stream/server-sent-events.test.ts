import { ToolResult } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { harness, untilAborted } from "../../../test/agent-fixtures.js";
import { createAgentRunStream } from "./agent-run-stream.js";
import { toServerSentEvents } from "./server-sent-events.js";

interface Frame {
  event: string;
  data: unknown;
}

/** A small server-sent-events parser (the WHATWG rules this encoder relies on): frames end with a blank line. */
async function readFrames(body: ReadableStream<Uint8Array>): Promise<Frame[]> {
  const text = await new Response(body).text();
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((block) => {
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else throw new Error(`unexpected line: ${line}`);
      }
      return { event, data: JSON.parse(data.join("\n")) as unknown };
    });
}

describe("toServerSentEvents", () => {
  it("writes one event/data frame per event, JSON-safe, ending with run-end", async () => {
    const h = harness();
    h.world.on("postNote", () => ({ at: new Date(0), count: 10n, tags: new Set(["a"]) }));
    const { agent } = h.agent([
      { toolCalls: [{ name: "postNote", arguments: { note: "line one\nline two" } }] },
      { text: "Posted the note.\nDone." },
    ]);
    const stream = agent.stream("post");
    const frames = await readFrames(toServerSentEvents(stream));
    const result = await stream.result;
    expect(frames[0]).toEqual({
      event: "run-start",
      data: { type: "run-start", runId: result.runId, agent: "test-agent" },
    });
    for (const frame of frames) expect((frame.data as { type: string }).type).toBe(frame.event);
    expect(frames.at(-1)?.event).toBe("run-end");
    // The browser-safe projection: the answer and the run's health, never the conversation.
    const end = frames.at(-1)!.data as Record<string, unknown>;
    expect(Object.keys(end).sort()).toEqual(["health", "runId", "status", "text", "type", "usage"]);
    expect(end["text"]).toBe("Posted the note.\nDone.");
    expect(result.messages.length).toBeGreaterThan(0);
    expect(frames.find((f) => f.event === "tool-call")?.data).toMatchObject({
      arguments: { note: "line one\nline two" },
    });
    const outcome = (frames.find((f) => f.event === "tool-result")!.data as { outcome: { data: unknown } }).outcome;
    expect(outcome.data).toMatchObject({ at: "1970-01-01T00:00:00.000Z" });
    const deltas = frames.filter((f) => f.event === "text-delta").map((f) => (f.data as { delta: string }).delta);
    expect(deltas.join("")).toBe("Posted the note.\nDone.");
  });

  it("ends with an error frame with a safe message when the run fails, never the exception's text", async () => {
    const stream = createAgentRunStream(async (sink) => {
      await sink.emit({ type: "run-start", runId: "r", agent: "a" });
      throw new Error("db password hunter2 rejected");
    });
    const frames = await readFrames(toServerSentEvents(stream));
    expect(frames).toEqual([
      { event: "run-start", data: { type: "run-start", runId: "r", agent: "a" } },
      { event: "run-error", data: { type: "run-error", code: "RUN_FAILED", message: "The run failed." } },
    ]);
    await expect(stream.result).rejects.toThrow(/hunter2/);
  });

  it("cancelling the ReadableStream cancels the run and aborts its tools", async () => {
    const h = harness();
    let toolSignal: AbortSignal | undefined;
    h.world.on("postNote", (_args, ctx) => {
      toolSignal = ctx.signal;
      return untilAborted(ctx.signal);
    });
    h.world.on("updateContact", () => ToolResult.ok("never"));
    const { agent, model } = h.agent([
      { toolCalls: [{ name: "postNote", arguments: { note: "n" } }] },
      { text: "never" },
    ]);
    const stream = agent.stream("post");
    const reader = toServerSentEvents(stream).getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("event: tool-call")) seen += decoder.decode((await reader.read()).value);
    await new Promise((resolve) => setImmediate(resolve));
    await reader.cancel();
    expect(toolSignal?.aborted).toBe(true);
    await expect(stream.result).rejects.toMatchObject({ name: "AbortError" });
    expect(model.requests).toHaveLength(1);
  });
});
