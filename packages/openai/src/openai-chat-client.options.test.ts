import { NeedleworkError, type ToolDefinition } from "@needlework/core";
import { OpenAI } from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OpenAIChatClient } from "./openai-chat-client.js";
import { OPENAI_CHAT_CLIENT_DEFAULTS } from "./openai-chat-client.options.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const lookup: ToolDefinition = {
  name: "lookup",
  description: "Looks a thing up.",
  parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  flags: { idempotent: true, readOnly: false, requiresApproval: false, dependsOn: [] },
  tags: [],
};
const loose: ToolDefinition = {
  ...lookup,
  name: "loose",
  parameters: { type: "object", properties: { id: { type: "string" } } },
};
const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [lookup] };

describe("OpenAIChatClient options", () => {
  it("pins the defaults", () => {
    expect(OPENAI_CHAT_CLIENT_DEFAULTS).toEqual({
      maxRetries: 2,
      timeoutMs: 600_000,
      strict: "auto",
      baseURL: "https://api.openai.com/v1",
      api: "chat-completions",
    });
    const chatClient = new OpenAIChatClient({ apiKey: "k", model: "gpt-4o-mini" });
    expect(chatClient.api).toBe("chat-completions");
    expect(chatClient.provider).toBe("openai");
    expect(chatClient.endpoint).toEqual({ address: "api.openai.com", port: 443 });
    expect(new OpenAIChatClient({ baseURL: "http://localhost:11434/v1", model: "m" }).endpoint).toEqual({
      address: "localhost",
      port: 11434,
    });
    expect(chatClient.client.maxRetries).toBe(2);
    expect(chatClient.client.timeout).toBe(600_000);
    expect(chatClient.client.baseURL).toBe("https://api.openai.com/v1");
  });

  it("configures the SDK client from the options", () => {
    const chatClient = new OpenAIChatClient({
      apiKey: "k",
      baseURL: "http://localhost:8000/v1",
      model: "m",
      maxRetries: 0,
      timeoutMs: 30_000,
    });
    expect(chatClient.client).toMatchObject({
      apiKey: "k",
      baseURL: "http://localhost:8000/v1",
      maxRetries: 0,
      timeout: 30_000,
    });
  });

  it("fails with a clear error when neither a key nor a base URL is available", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    let error: unknown;
    try {
      new OpenAIChatClient({ model: "gpt-4o-mini" });
    } catch (e) {
      error = e;
    }
    expect(NeedleworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "OPENAI_NOT_CONFIGURED" });
    expect((error as Error).message).toMatch(/OPENAI_API_KEY/);
    expect((error as Error).message).toMatch(/OPENAI_BASE_URL.*localhost:11434\/v1/);
  });

  it("options win over the environment", () => {
    vi.stubEnv("OPENAI_API_KEY", "env-key");
    vi.stubEnv("OPENAI_BASE_URL", "http://env-host:1/v1");
    expect(new OpenAIChatClient({ model: "m" }).client).toMatchObject({
      apiKey: "env-key",
      baseURL: "http://env-host:1/v1",
    });
    expect(new OpenAIChatClient({ model: "m", apiKey: "opt", baseURL: "http://opt-host:2/v1" }).client).toMatchObject({
      apiKey: "opt",
      baseURL: "http://opt-host:2/v1",
    });
  });

  it.each([
    [{}, /`model` must be/],
    [{ model: " " }, /`model` must be/],
    [{ model: "m", temprature: 0 }, /unknown option 'temprature'/],
    [{ model: "m", temperature: -1 }, /`temperature` must be/],
    [{ model: "m", maxTokens: 0 }, /`maxTokens` must be a positive integer/],
    [{ model: "m", maxTokensField: "max_output_tokens" }, /`maxTokensField` must be/],
    [{ model: "m", maxRetries: -1 }, /`maxRetries` must be an integer >= 0/],
    [{ model: "m", maxRetries: Infinity }, /`maxRetries` must be an integer >= 0/],
    [{ model: "m", timeoutMs: 0 }, /`timeoutMs` must be a positive integer/],
    [{ model: "m", strict: "yes" }, /`strict` must be/],
    [{ model: "m", parallelToolCalls: "true" }, /`parallelToolCalls` must be a boolean/],
    [{ model: "m", extraBody: { messages: [] } }, /`extraBody` must not set 'messages'/],
    [{ model: "m", extraBody: { stream: true } }, /`extraBody` must not set 'stream'/],
    [{ model: "m", extraBody: { input: [] } }, /`extraBody` must not set 'input'/],
    [{ model: "m", api: "assistants" }, /`api` must be "chat-completions" or "responses"/],
    [{ model: "m", client: {} }, /`client` must be an OpenAI client/],
    [
      { model: "m", client: new OpenAI({ apiKey: "k" }), baseURL: "http://x/v1" },
      /`baseURL` cannot be combined with `client`/,
    ],
  ])("rejects bad options (%#)", (options, message) => {
    expect(() => new OpenAIChatClient(options as never)).toThrow(message);
  });
});

describe("OpenAIChatClient.requestBody", () => {
  it("sends maxTokens as max_completion_tokens to api.openai.com and as max_tokens elsewhere, unless told", () => {
    expect(new OpenAIChatClient({ apiKey: "k", model: "m", maxTokens: 100 }).requestBody(request)).toMatchObject({
      max_completion_tokens: 100,
    });
    const local = new OpenAIChatClient({
      baseURL: "http://localhost:11434/v1",
      model: "m",
      maxTokens: 100,
    }).requestBody(request);
    expect(local).toMatchObject({ max_tokens: 100 });
    expect(local).not.toHaveProperty("max_completion_tokens");
    expect(
      new OpenAIChatClient({
        baseURL: "http://localhost:8000/v1",
        model: "m",
        maxTokens: 100,
        maxTokensField: "max_completion_tokens",
      }).requestBody(request),
    ).toMatchObject({ max_completion_tokens: 100 });
  });

  it("applies strict mode per schema by default, and as told", () => {
    const auto = new OpenAIChatClient({ apiKey: "k", model: "m" }).requestBody({ ...request, tools: [lookup, loose] });
    expect(auto.tools?.map((t) => (t as { function: { strict?: boolean } }).function.strict)).toEqual([true, false]);
    const off = new OpenAIChatClient({ apiKey: "k", model: "m", strict: false }).requestBody(request);
    expect(off.tools).toEqual([
      {
        type: "function",
        function: { name: "lookup", description: "Looks a thing up.", parameters: lookup.parameters },
      },
    ]);
    expect(() =>
      new OpenAIChatClient({ apiKey: "k", model: "m", strict: true }).requestBody({ ...request, tools: [loose] }),
    ).toThrow(/cannot use OpenAI strict mode/);
  });

  it("merges extraBody last and sends parallel_tool_calls only with tools", () => {
    const chatClient = new OpenAIChatClient({
      apiKey: "k",
      model: "m",
      temperature: 1,
      parallelToolCalls: false,
      extraBody: { temperature: 0.2, seed: 7, reasoning_effort: "low" },
    });
    expect(chatClient.requestBody(request)).toMatchObject({
      temperature: 0.2,
      seed: 7,
      reasoning_effort: "low",
      parallel_tool_calls: false,
    });
    expect(chatClient.requestBody({ ...request, tools: [] })).not.toHaveProperty("parallel_tool_calls");
    expect(chatClient.requestBody({ ...request, tools: [] })).not.toHaveProperty("tools");
  });
});
