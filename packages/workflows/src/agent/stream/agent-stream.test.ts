import { type ChatClient, isAbortError, ToolResult } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { assertStatus, harness, HttpError, untilAborted } from "../../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../../test/diagnostics-fixtures.js";
import type { AgentEvent, AgentRunResult } from "@needlework/core/events";
import { createAgent } from "../agent.js";
import { ScriptedChatClient, type ScriptedStep } from "@needlework/core";
import { ChatStreamIncompleteError } from "@needlework/core";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Latencies are measured, so they differ between two runs of one script; everything else must not. */
function withoutTimings(result: AgentRunResult): unknown {
  return JSON.parse(JSON.stringify(result).replace(/(latency_?[mM]s\\?"\s*:\s*)[\d.e+-]+/g, "$10"));
}

/** Checks the stream contract: run-start first, run-end last, each tool-call answered once by its tool-result. */
function expectWellFormed(events: readonly AgentEvent[]): void {
  expect(events[0]?.type).toBe("run-start");
  expect(events.at(-1)?.type).toBe("run-end");
  expect(events.filter((e) => e.type === "run-start" || e.type === "run-end")).toHaveLength(2);
  const open = new Set<string>();
  for (const event of events) {
    if (event.type === "tool-call") {
      expect(open.has(event.callId)).toBe(false);
      open.add(event.callId);
    }
    if (event.type === "tool-result") {
      expect(open.delete(event.callId)).toBe(true);
    }
  }
  expect([...open]).toEqual([]);
  const calls = events.filter((e) => e.type === "tool-call").map((e) => e.callId);
  const results = events.filter((e) => e.type === "tool-result").map((e) => e.callId);
  expect(results.sort()).toEqual(calls.sort());
}

const syncScript = (): ScriptedStep[] => [
  {
    text: "Syncing c1 and c2.",
    toolCalls: [
      { name: "updateContact", arguments: { contactId: "c1" } },
      { name: "updateContact", arguments: { contactId: "c2" } },
    ],
    usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 },
  },
  {
    text: "  Updated c1; c2 was not found (NOT_FOUND), so it is not synced.\n",
    usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 },
  },
];

function failingC2(h: ReturnType<typeof harness>): void {
  h.world.on("updateContact", ({ contactId }) => {
    if (contactId === "c2") throw new HttpError(404, "row c2 missing in tenant 77 (secret sk_live_51Hx)");
    return { updated: contactId };
  });
}

describe("agent.stream()", () => {
  it("streams the run in order and ends in the same result as run() for the same script", async () => {
    const a = harness();
    failingC2(a);
    const ran = await a.agent(syncScript()).agent.run("Sync c1 and c2", { runId: "run-s" });
    const b = harness();
    failingC2(b);
    const stream = b.agent(syncScript()).agent.stream("Sync c1 and c2", { runId: "run-s" });
    const events = await collect(stream);
    const streamed = await stream.result;

    expect(withoutTimings(streamed)).toEqual(withoutTimings(ran));
    expect(streamed.status).toBe("completed_with_failures");
    expectWellFormed(events);
    expect(events.map((e) => e.type)).toEqual([
      "run-start",
      "turn-start",
      ...Array<"text-delta">(4).fill("text-delta"),
      "tool-call",
      "tool-call",
      "tool-result",
      "tool-result",
      "run-health",
      "turn-end",
      "turn-start",
      ...Array<"text-delta">(events.filter((e) => e.type === "text-delta" && e.turn === 2).length).fill("text-delta"),
      "turn-end",
      "run-end",
    ]);
    expect(events[0]).toEqual({ type: "run-start", runId: "run-s", agent: "test-agent" });
    expect(events.at(-1)).toEqual({ type: "run-end", result: streamed });
    // Word by word, whitespace kept: the final turn's deltas join to result.text exactly.
    const finalDeltas = events.flatMap((e) => (e.type === "text-delta" && e.turn === 2 ? [e.delta] : []));
    expect(finalDeltas.length).toBeGreaterThan(5);
    expect(finalDeltas.join("")).toBe(streamed.text);
    expect(finalDeltas[0]).toBe("  ");
    expect(events.find((e) => e.type === "tool-call")).toEqual({
      type: "tool-call",
      turn: 1,
      callId: "call_1_1",
      tool: "updateContact",
      arguments: { contactId: "c1" },
    });
    const failed = events.find((e) => e.type === "tool-result" && e.callId === "call_1_2");
    expect(failed).toMatchObject({
      type: "tool-result",
      turn: 1,
      tool: "updateContact",
      outcome: { status: "error", errorCode: "NOT_FOUND" },
    });
    // As the model reads it: never the exception or its text.
    expect(JSON.stringify(failed)).not.toMatch(/tenant 77|sk_live/);
    expect(failed && "outcome" in failed && "exception" in failed.outcome).toBe(false);
    expect(events.find((e) => e.type === "run-health")).toEqual({
      type: "run-health",
      turn: 1,
      health: { tools_ok: 1, tools_failed: 1, tools_not_called: 0, blocking_failure: true },
    });
    expect(events.filter((e) => e.type === "turn-end")).toEqual([
      { type: "turn-end", turn: 1, usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } },
      { type: "turn-end", turn: 2, usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 } },
    ]);
  });

  it("streams a correction, and skipped calls get their tool-result too", async () => {
    const h = harness();
    h.world.on("createAccount", () => ToolResult.fail("Account name taken", { code: "CONFLICT" }));
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "createAccount", arguments: { name: "Acme" } },
          { name: "addToAccount", arguments: { contactId: "c1" } },
        ],
      },
      { text: "All done, everything was created successfully." },
      { text: "Creating the account failed (CONFLICT); c1 was not added." },
    ]);
    const stream = agent.stream("Create Acme and add c1");
    const events = await collect(stream);
    const result = await stream.result;
    expectWellFormed(events);
    expect(events.find((e) => e.type === "tool-result" && e.tool === "addToAccount")).toMatchObject({
      outcome: { status: "skipped", errorCode: "SKIPPED_DEPENDENCY_FAILED" },
    });
    expect(events.find((e) => e.type === "correction")).toMatchObject({
      type: "correction",
      turn: 2,
      reason: expect.stringMatching(/claims success/),
    });
    expect(events.flatMap((e) => (e.type === "text-delta" && e.turn === 3 ? [e.delta] : [])).join("")).toBe(
      result.text,
    );
    expect(result.status).toBe("completed_with_failures");
  });

  it("falls back to complete() for a client without stream(): the whole text is one delta", async () => {
    const { invoker } = harness();
    const chatClient: ChatClient = { complete: async () => ({ message: { content: "Hello there." } }) };
    const stream = createAgent({ invoker }, { name: "plain", instructions: "", chatClient }).stream("hi");
    const events = await collect(stream);
    expect(events.filter((e) => e.type === "text-delta")).toEqual([
      { type: "text-delta", turn: 1, delta: "Hello there." },
    ]);
    expect((await stream.result).text).toBe("Hello there.");
  });

  it("run() reads the model with complete(), stream() with stream()", async () => {
    const { invoker } = harness();
    const used: string[] = [];
    const chatClient: ChatClient = {
      complete: async () => (used.push("complete"), { message: { content: "a" } }),
      async *stream() {
        used.push("stream");
        yield { type: "text-delta", delta: "a" };
        yield { type: "finish" };
      },
    };
    const agent = createAgent({ invoker }, { name: "a", instructions: "", chatClient });
    await agent.run("x");
    await agent.stream("x").result;
    expect(used).toEqual(["complete", "stream"]);
  });

  it("breaking out of the loop cancels the run: the tool's signal aborts, no further model request, result rejects with an AbortError", async () => {
    const h = harness();
    let toolSignal: AbortSignal | undefined;
    h.world.on("postNote", (_args, ctx) => {
      toolSignal = ctx.signal;
      return untilAborted(ctx.signal);
    });
    const { agent, model } = h.agent([
      { toolCalls: [{ name: "postNote", arguments: { note: "n" } }] },
      { text: "never asked" },
    ]);
    const stream = agent.stream("post");
    for await (const event of stream) {
      if (event.type === "tool-call") {
        await flush();
        break;
      }
    }
    expect(toolSignal?.aborted).toBe(true);
    const error = await stream.result.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    await flush();
    expect(model.requests).toHaveLength(1);
  });

  it("an unobserved rejected result does not crash the process (vitest fails on unhandled rejections)", async () => {
    const h = harness();
    h.world.on("postNote", (_args, ctx) => untilAborted(ctx.signal));
    const stream = h.agent([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }]).agent.stream("post");
    for await (const event of stream) if (event.type === "tool-call") break;
    await flush();
    await flush();
  });

  it("an aborted signal cancels the run; the iteration and result reject with the AbortError", async () => {
    const h = harness();
    h.world.on("postNote", (_args, ctx) => untilAborted(ctx.signal));
    const controller = new AbortController();
    const { agent, model } = h.agent([
      { toolCalls: [{ name: "postNote", arguments: { note: "n" } }] },
      { text: "never" },
    ]);
    const stream = agent.stream("post", { signal: controller.signal });
    const seen: string[] = [];
    const iterated = (async () => {
      for await (const event of stream) {
        seen.push(event.type);
        if (event.type === "tool-call") controller.abort();
      }
    })();
    expect(isAbortError(await iterated.catch((e: unknown) => e))).toBe(true);
    expect(isAbortError(await stream.result.catch((e: unknown) => e))).toBe(true);
    expect(seen).toEqual(["run-start", "turn-start", "tool-call"]);
    expect(model.requests).toHaveLength(1);
  });

  it("a slow consumer loses nothing: the run waits while the buffer is full", async () => {
    const h = harness();
    const { agent, model } = h.agent([
      { text: "one two three four five six", toolCalls: [{ name: "postNote", arguments: { note: "a" } }] },
      { text: "done and dusted, all of it" },
    ]);
    const stream = agent.stream("go", { bufferSize: 2 });
    for (let i = 0; i < 10; i++) await flush();
    // Two events buffered, the run waits on the third: the first turn's text is not even read.
    expect(model.requests).toHaveLength(1);
    expect(h.world.log).toEqual([]);
    const events = await collect(stream);
    expectWellFormed(events);
    const result = await stream.result;
    expect(result.status).toBe("completed");
    expect(
      events
        .filter((e) => e.type === "text-delta" && e.turn === 1)
        .map((e) => (e.type === "text-delta" ? e.delta : ""))
        .join(""),
    ).toBe("one two three four five six");
    expect(events.flatMap((e) => (e.type === "text-delta" && e.turn === 2 ? [e.delta] : [])).join("")).toBe(
      result.text,
    );
  });

  it("a model stream that ends without its finish part fails the run with CHAT_STREAM_INCOMPLETE", async () => {
    const { invoker } = harness();
    const chatClient: ChatClient = {
      complete: async () => ({ message: { content: "x" } }),
      async *stream() {
        yield { type: "text-delta", delta: "Half a sen" };
      },
    };
    const stream = createAgent({ invoker }, { name: "a", instructions: "", chatClient }).stream("x");
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatStreamIncompleteError);
    expect(await stream.result.catch((e: unknown) => (e as ChatStreamIncompleteError).code)).toBe(
      "CHAT_STREAM_INCOMPLETE",
    );
  });

  it("streams approvals, and resumeStream streams the resumed round and the rest of the run", async () => {
    const h = harness();
    const { agent } = h.agent([
      {
        toolCalls: [
          { name: "lookupOrder", arguments: { orderId: "o1" } },
          { name: "refund", arguments: { orderId: "o1", amount: 40 } },
        ],
      },
      { text: "The refund of 40 was issued." },
    ]);
    const first = agent.stream("Refund o1", { runId: "run-r" });
    const paused = await collect(first);
    const result = await first.result;
    assertStatus(result, "awaiting_approval");
    expectWellFormed(paused);
    expect(paused.map((e) => e.type)).toEqual(["run-start", "turn-start", "turn-end", "approval-required", "run-end"]);
    expect(paused[3]).toEqual({
      type: "approval-required",
      checkpoint: result.checkpoint,
      pending: result.pendingApprovals,
    });
    expect(h.world.log).toEqual([]);

    const resumed = agent.resumeStream(JSON.stringify(result.checkpoint), { call_1_2: "approved" });
    const events = await collect(resumed);
    expectWellFormed(events);
    // The paused run's journal is replayed first: its events are marked `replayed: true`.
    expect(events.filter((e) => e.replayed === true).map((e) => e.type)).toEqual(["run-start", "turn-start"]);
    expect(events[0]).toEqual({ type: "run-start", runId: "run-r", agent: "test-agent", replayed: true });
    const live = events.filter((e) => e.replayed !== true);
    expect(live.slice(0, 5).map((e) => e.type)).toEqual([
      "tool-call",
      "tool-call",
      "tool-result",
      "tool-result",
      "turn-end",
    ]);
    const done = await resumed.result;
    expect(done).toMatchObject({ status: "completed", text: "The refund of 40 was issued." });
    expect(h.world.log.map((e) => e.tool)).toEqual(["lookupOrder", "refund"]);
    // A checkpoint resumes once, streamed or not.
    await expect(agent.resumeStream(result.checkpoint, { call_1_2: "approved" }).result).rejects.toMatchObject({
      code: "CHECKPOINT_ALREADY_RESUMED",
    });
  });

  it("streams tool-retry events between a call and its result, with the failed attempt's code", async () => {
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
    const stream = agent.stream("post");
    const events = await collect(stream);
    expectWellFormed(events);
    const types = events.map((e) => e.type);
    expect(types.indexOf("tool-call")).toBeLessThan(types.indexOf("tool-retry"));
    expect(types.indexOf("tool-retry")).toBeLessThan(types.indexOf("tool-result"));
    expect(events.find((e) => e.type === "tool-retry")).toEqual({
      type: "tool-retry",
      callId: "call_1_1",
      tool: "postNote",
      attempt: 1,
      delayMs: 0,
      errorCode: "LOCKED",
    });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({
      outcome: { status: "ok", metadata: { attempts: 2 } },
    });
    expect((await stream.result).status).toBe("completed");
  });

  it("an agent with diagnostics streams too, its model read through stream() inside chat spans", async () => {
    const spans: string[] = [];
    const tracer = {
      startSpan(name: string) {
        spans.push(name);
        return {
          setAttribute() {},
          setAttributes() {},
          addEvent() {},
          recordException() {},
          setStatus() {},
          end() {},
          spanContext: () => ({ traceId: "t", spanId: "s", traceFlags: 1 }),
          isRecording: () => true,
          updateName() {},
          addLink() {},
          addLinks() {},
        };
      },
    };
    const { factory } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ tracer: tracer as never }),
    );
    const model = new ScriptedChatClient([{ text: "Hello from a traced stream." }]);
    const stream = factory.createAgent({ name: "t", instructions: "", chatClient: model }).stream("hi");
    const events = await collect(stream);
    expect(events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(1);
    expect((await stream.result).text).toBe("Hello from a traced stream.");
    expect(spans.some((s) => s.startsWith("invoke_agent"))).toBe(true);
    expect(spans.some((s) => s.startsWith("chat"))).toBe(true);
  });

  it("can be iterated once", () => {
    const stream = harness()
      .agent([{ text: "x" }])
      .agent.stream("x");
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });
});
