import { isAbortError, toOpenAITools } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type ChatCompletionsServer,
  completion,
  errorReply,
  useChatCompletionsServer,
} from "../test/chat-completions-server.js";
import { Warehouse, WarehouseTools } from "../test/fixtures.js";
import { clientOver, SDKS } from "../test/sdks.js";
import { type TimerWatch, watchTimers } from "../test/timer-watch.js";
import { OpenAIChatClient } from "./openai-chat-client.js";
import type { OpenAIChatClientOptions } from "./openai-chat-client.options.js";

const INSTRUCTIONS = "You manage warehouse reservations.";
const ASK = "Reserve 2 units of SKU-1.";

// Registered first, so (hooks run as a stack) the server closes after the timers are restored below.
const serve = useChatCompletionsServer();
let timers: TimerWatch | undefined;

afterEach(() => {
  timers?.dispose();
  timers = undefined;
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

function agentOver(chatClient: OpenAIChatClient, warehouse = new Warehouse()) {
  const factory = usingAgentFramework(container.createChildContainer().register(Warehouse, { useValue: warehouse }))
    .addAgentFunctions(WarehouseTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
  return {
    factory,
    warehouse,
    agent: factory.createAgent({ name: "warehouse", instructions: INSTRUCTIONS, chatClient }),
  };
}

const toolContent = (messages: readonly unknown[], callId: string): Record<string, unknown> => {
  const message = messages.find((m) => (m as { tool_call_id?: string }).tool_call_id === callId) as
    | { content: string }
    | undefined;
  if (!message) throw new Error(`no tool message answers ${callId}`);
  return JSON.parse(message.content) as Record<string, unknown>;
};

describe.each(SDKS)("with %s", (_, Sdk) => {
  const clientFor = (s: ChatCompletionsServer, options: Partial<OpenAIChatClientOptions> = {}) =>
    clientOver(Sdk, s, options);

  describe("OpenAIChatClient driving an agent run against an OpenAI-compatible server", () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      timers = watchTimers();
      // The SDK's backoff jitter draws from Math.random; 0 makes its first wait exactly 500 ms.
      vi.spyOn(Math, "random").mockReturnValue(0);
    });

    it("waits out a 429's retry-after and a 500's backoff, keeps tool-call ids both ways, and the model recovers from a failing tool", async () => {
      const s = await serve(
        errorReply(
          429,
          "requests",
          "Rate limit reached for gpt-test in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.",
          "rate_limit_exceeded",
          { "retry-after": "1" },
        ),
        {
          body: completion({
            id: "chatcmpl-1",
            toolCalls: [
              { id: "call_stock_1", name: "getStock", arguments: '{"sku":"SKU-1"}' },
              { id: "call_reserve_1", name: "reserve", arguments: '{"sku": "SKU-1", "quantity": 2}' },
            ],
            usage: { prompt: 100, completion: 20 },
          }),
        },
        errorReply(
          500,
          "server_error",
          "The server had an error while processing your request. Sorry about that!",
          null,
        ),
        {
          body: completion({
            id: "chatcmpl-2",
            toolCalls: [{ id: "call_reserve_2", name: "reserve", arguments: '{"sku":"SKU-1","quantity":2}' }],
            usage: { prompt: 150, completion: 10 },
          }),
        },
        {
          body: completion({
            id: "chatcmpl-3",
            content: "Reserved 2 units of SKU-1 (reservation R-1).",
            usage: { prompt: 200, completion: 15 },
          }),
        },
      );
      const warehouse = new Warehouse();
      warehouse.outages = 1;
      const { agent, factory } = agentOver(clientFor(s, { parallelToolCalls: true }), warehouse);

      const run = agent.run(ASK, { runId: "run-1" });
      // The 429: the SDK waits exactly retry-after (1 s) before asking again.
      await timers!.next((ms) => ms === 1000);
      await vi.advanceTimersByTimeAsync(999);
      expect(s.requests).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      await s.whenRequest(2);
      // The 500 has no retry-after: the SDK's own backoff (0.5 s for a first retry).
      await timers!.next((ms) => ms === 500);
      await vi.advanceTimersByTimeAsync(500);
      const result = await run;

      expect(s.requests).toHaveLength(5);
      for (const request of s.requests) {
        expect(request).toMatchObject({
          method: "POST",
          url: "/v1/chat/completions",
          headers: { authorization: "Bearer test", "content-type": "application/json" },
        });
      }
      const [first, retried, third, thirdRetried, last] = s.requests.map((r) => r.body);
      expect(retried).toEqual(first);
      expect(thirdRetried).toEqual(third);

      // The first request: instructions and question, every tool in OpenAI's format (strict where the schema allows it).
      expect(first).toEqual({
        model: "gpt-test",
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: ASK },
        ],
        tools: toOpenAITools(factory.tools.definitions),
        parallel_tool_calls: true,
      });
      expect(first!.tools).toContainEqual({
        type: "function",
        function: {
          name: "getStock",
          description: "Reads the stock level of a product.",
          parameters: {
            type: "object",
            properties: { sku: { type: "string", description: "Product SKU, like 'SKU-1'." } },
            required: ["sku"],
            additionalProperties: false,
          },
          strict: true,
        },
      });

      // The third: the assistant's parallel calls as sent (ids, raw arguments), one tool message per call id, then run_health.
      const messages = third!.messages;
      expect(messages.slice(0, 3)).toEqual([
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: ASK },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_stock_1", type: "function", function: { name: "getStock", arguments: '{"sku":"SKU-1"}' } },
            {
              id: "call_reserve_1",
              type: "function",
              function: { name: "reserve", arguments: '{"sku": "SKU-1", "quantity": 2}' },
            },
          ],
        },
      ]);
      expect(messages.slice(3, 5).map((m) => [m.role, (m as { tool_call_id: string }).tool_call_id])).toEqual([
        ["tool", "call_stock_1"],
        ["tool", "call_reserve_1"],
      ]);
      expect(toolContent(messages, "call_stock_1")).toMatchObject({
        status: "ok",
        data: { sku: "SKU-1", onHand: 7 },
        metadata: { tool: "getStock", call_id: "call_stock_1" },
      });
      expect(toolContent(messages, "call_reserve_1")).toMatchObject({
        status: "error",
        error_code: "UPSTREAM_ERROR",
        retriable: true,
        metadata: { tool: "reserve", call_id: "call_reserve_1" },
      });
      expect(JSON.stringify(messages)).not.toContain("warehouse-db-3");
      expect(messages[5]).toMatchObject({ role: "user" });
      expect(messages[5]!.content).toContain('"blocking_failure":true');
      expect(messages).toHaveLength(6);

      // The last: the retried call answered under its own id; a clean round adds no run_health.
      expect(last!.messages).toHaveLength(8);
      expect(last!.messages[6]).toEqual({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_reserve_2",
            type: "function",
            function: { name: "reserve", arguments: '{"sku":"SKU-1","quantity":2}' },
          },
        ],
      });
      expect(toolContent(last!.messages, "call_reserve_2")).toMatchObject({
        status: "ok",
        data: { reservationId: "R-1", sku: "SKU-1", quantity: 2 },
      });

      expect(result).toMatchObject({
        status: "completed",
        runId: "run-1",
        text: "Reserved 2 units of SKU-1 (reservation R-1).",
        iterations: 3,
        usage: { inputTokens: 450, outputTokens: 45, totalTokens: 495 },
        health: { tools_ok: 2, tools_failed: 1, tools_not_called: 0, blocking_failure: false },
        recoveries: [{ tool: "reserve", failedCallId: "call_reserve_1", recoveredCallId: "call_reserve_2", steps: 1 }],
        silentFailure: false,
      });
      expect(result.calls.map((c) => [c.tool, c.callId, c.status, c.errorCode])).toEqual([
        ["getStock", "call_stock_1", "ok", undefined],
        ["reserve", "call_reserve_1", "error", "UPSTREAM_ERROR"],
        ["reserve", "call_reserve_2", "ok", undefined],
      ]);
      // The SDK retried model calls only: each tool call ran once, so one reservation.
      expect(warehouse.reservations).toEqual([{ sku: "SKU-1", quantity: 2 }]);
      // The SDK's request timeouts and retry waits and the resilience timeouts were all cleared or fired.
      expect(timers!.pending()).toBe(0);
    });

    it("rejects the run with the SDK's error once its retries are spent (maxRetries bounds the requests)", async () => {
      const rateLimited = errorReply(429, "requests", "Rate limit reached for gpt-test.", "rate_limit_exceeded", {
        "retry-after": "2",
      });
      const s = await serve(rateLimited, rateLimited, { body: completion({ id: "never", content: "never sent" }) });
      const { agent } = agentOver(clientFor(s, { maxRetries: 1 }));

      const run = agent.run(ASK);
      const settled = run.catch((e: unknown) => e);
      await timers!.next((ms) => ms === 2000);
      await vi.advanceTimersByTimeAsync(2000);
      const error = await settled;

      expect(error).toBeInstanceOf(Sdk.RateLimitError);
      expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
      expect(s.requests).toHaveLength(2);
      expect(timers!.pending()).toBe(0);
    });

    it("with maxRetries 0 a 500 rejects the run at once", async () => {
      const s = await serve(
        errorReply(500, "server_error", "The server had an error while processing your request.", null),
        { body: completion({ id: "never" }) },
      );
      const { agent } = agentOver(clientFor(s, { maxRetries: 0 }));
      const error = await agent.run(ASK).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Sdk.InternalServerError);
      expect(error).toMatchObject({ status: 500 });
      expect(s.requests).toHaveLength(1);
      expect(timers!.delays).not.toContain(500);
    });

    it("an abort while the SDK waits out retry-after rejects at once, and no request follows", async () => {
      const s = await serve(
        errorReply(429, "requests", "Rate limit reached.", "rate_limit_exceeded", { "retry-after": "60" }),
        { body: completion({ id: "never" }) },
      );
      const client = clientFor(s);
      const controller = new AbortController();
      const pending = client
        .complete({ messages: [{ role: "user", content: "hi" }], tools: [], signal: controller.signal })
        .catch((e: unknown) => e);
      await timers!.next((ms) => ms === 60_000);
      controller.abort();
      expect(isAbortError(await pending)).toBe(true);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(s.requests).toHaveLength(1);
      expect(timers!.pending()).toBe(0);
    });
  });

  describe("OpenAIChatClient over HTTP", () => {
    it("an abort mid-request rejects the run with an AbortError and the server sees the connection closed", async () => {
      const s = await serve("hang");
      const { agent } = agentOver(clientFor(s));
      const controller = new AbortController();
      const run = agent.run(ASK, { signal: controller.signal });
      await s.whenRequest(1);
      controller.abort();
      const error = await run.catch((e: unknown) => e);
      expect(isAbortError(error)).toBe(true);
      await s.whenClosedEarly(1);
      expect(s.requests[0]!.closedEarly).toBe(true);
    });

    it("complete() rejects with the caller's abort reason and leaves no listener on the caller's signal", async () => {
      const s = await serve({ body: completion({ id: "c1", content: "hello" }) }, "hang");
      const client = clientFor(s);
      const controller = new AbortController();
      const { signal } = controller;
      let listeners = 0;
      const add = signal.addEventListener.bind(signal);
      const remove = signal.removeEventListener.bind(signal);
      signal.addEventListener = ((...args: Parameters<typeof add>) => (
        listeners++, add(...args)
      )) as typeof signal.addEventListener;
      signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
        listeners--, remove(...args)
      )) as typeof signal.removeEventListener;

      await client.complete({ messages: [{ role: "user", content: "hi" }], tools: [], signal });
      expect(listeners).toBe(0);

      const reason = new Error("user left");
      reason.name = "AbortError";
      const pending = client.complete({ messages: [{ role: "user", content: "hi" }], tools: [], signal });
      await s.whenRequest(2);
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(listeners).toBe(0);
      await s.whenClosedEarly(2);
    });

    it("an already aborted signal sends nothing", async () => {
      const s = await serve({ body: completion({ id: "c1" }) });
      const error = await clientFor(s)
        .complete({ messages: [{ role: "user", content: "hi" }], tools: [], signal: AbortSignal.abort() })
        .catch((e: unknown) => e);
      expect(isAbortError(error)).toBe(true);
      expect(s.requests).toHaveLength(0);
    });

    it("maps usage and finish_reason, and sends no tools or parallel_tool_calls when there are none", async () => {
      const s = await serve(
        {
          body: completion({
            id: "c1",
            content: "Truncated answ",
            finishReason: "length",
            usage: { prompt: 31, completion: 9 },
          }),
        },
        { body: completion({ id: "c2", content: "ok", usage: null }) },
      );
      const client = clientFor(s, { parallelToolCalls: false, temperature: 0, maxTokens: 9 });
      const messages = [{ role: "user" as const, content: "hi" }];
      expect(await client.complete({ messages, tools: [] })).toEqual({
        message: { content: "Truncated answ" },
        usage: { inputTokens: 31, outputTokens: 9, totalTokens: 40 },
        finishReason: "length",
        id: "c1",
        model: "gpt-test-2025-01-01",
      });
      expect(await client.complete({ messages, tools: [] })).toEqual({
        message: { content: "ok" },
        finishReason: "stop",
        id: "c2",
        model: "gpt-test-2025-01-01",
      });
      // A local server gets max_tokens, the name it reads.
      expect(s.requests[0]!.body).toEqual({
        model: "gpt-test",
        messages: [{ role: "user", content: "hi" }],
        temperature: 0,
        max_tokens: 9,
      });
    });

    it("uses a client you pass, with maxRetries applied per request", async () => {
      const s = await serve(errorReply(503, "server_error", "Overloaded", null), { body: completion({ id: "never" }) });
      const client = new Sdk({ baseURL: s.baseURL, apiKey: "mine", maxRetries: 5 });
      const chatClient = new OpenAIChatClient({ client, model: "gpt-test", maxRetries: 0 });
      expect(chatClient.client).toBe(client);
      await expect(
        chatClient.complete({ messages: [{ role: "user", content: "hi" }], tools: [] }),
      ).rejects.toMatchObject({ status: 503 });
      expect(s.requests).toHaveLength(1);
      expect(s.requests[0]!.headers.authorization).toBe("Bearer mine");
    });
  });
});

describe("OpenAIChatClient configured from the environment", () => {
  it("takes the base URL and key from OPENAI_BASE_URL and OPENAI_API_KEY", async () => {
    const s = await serve(
      { body: completion({ id: "c1", content: "from env" }) },
      { body: completion({ id: "c2", content: "keyless" }) },
    );
    vi.stubEnv("OPENAI_BASE_URL", s.baseURL);
    vi.stubEnv("OPENAI_API_KEY", "env-key");
    const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
    expect((await new OpenAIChatClient({ model: "llama3.1" }).complete(request)).message.content).toBe("from env");
    vi.stubEnv("OPENAI_API_KEY", "");
    expect((await new OpenAIChatClient({ model: "llama3.1" }).complete(request)).message.content).toBe("keyless");
    expect(s.requests.map((r) => r.headers.authorization)).toEqual(["Bearer env-key", "Bearer no-key"]);
    expect(s.requests[0]!.body.model).toBe("llama3.1");
  });
});
