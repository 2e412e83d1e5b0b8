// The Responses API answers like Chat Completions when the server is not what it should be: a 200
// that is not JSON, a malformed event inside a stream, a connection reset in the middle of an answer.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { useChatCompletionsServer } from "../test/chat-completions-server.js";
import { clientOver, SDKS } from "../test/sdks.js";
import { OpenAIChatClient } from "./openai-chat-client.js";

const serve = useChatCompletionsServer();
const REQUEST = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
const APIS = ["chat-completions", "responses"] as const;

describe.each(SDKS)("OpenAIChatClient on both APIs, with %s", (_, Sdk) => {
  it.each(APIS)("a 200 HTML login page is OPENAI_NOT_JSON (%s)", async (api) => {
    const s = await serve({ contentType: "text/html", raw: "<!doctype html><title>Sign in</title>" });
    const error = await clientOver(Sdk, s, { api })
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "OPENAI_NOT_JSON" });
  });

  it.each(APIS)("a 200 event stream to a request that did not stream is OPENAI_NOT_JSON (%s)", async (api) => {
    const s = await serve({ contentType: "text/event-stream", raw: 'data: {"type":"response.created"}\n\n' });
    const error = await clientOver(Sdk, s, { api })
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "OPENAI_NOT_JSON" });
  });

  it.each(APIS)(
    "a malformed JSON chunk inside a stream is OPENAI_INVALID_RESPONSE, not an interruption (%s)",
    async (api) => {
      const s = await serve({ contentType: "text/event-stream", raw: "data: {not json\n\n" });
      const parts: unknown[] = [];
      const error = await (async () => {
        for await (const part of clientOver(Sdk, s, { api, maxRetries: 0 }).stream(REQUEST)) parts.push(part);
      })().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "OPENAI_INVALID_RESPONSE" });
      expect(parts.filter((p) => (p as { type: string }).type === "finish")).toEqual([]);
    },
  );
});

describe("a connection reset in the middle of an answer", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  it.each(APIS)("is worded as a reset, not as a refused connection (%s)", async (api) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":"x","obj', () => setImmediate(() => res.socket?.destroy()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const client = new OpenAIChatClient({
      client: new OpenAI({ baseURL, apiKey: "test", maxRetries: 0 }),
      model: "gpt-test",
      api,
    });
    const error = await client.complete(REQUEST).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: expect.stringMatching(/^OPENAI_(CONNECTION_FAILED|INVALID_RESPONSE)$/) });
    expect((error as Error).message).not.toMatch(/Could not connect/);
    expect((error as Error).message).toMatch(/reset|cut|closed/i);
  });
});
