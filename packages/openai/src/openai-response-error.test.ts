import { NeedleworkError } from "@needlework/core";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { errorReply, useChatCompletionsServer } from "../test/chat-completions-server.js";
import { clientOver, SDKS } from "../test/sdks.js";
import { OpenAIChatClient } from "./openai-chat-client.js";
import { OpenAIResponseError } from "./openai-response-error.js";

const serve = useChatCompletionsServer();

const REQUEST = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

/** A base URL nothing listens on: a port that was just free. */
async function refusedBaseURL(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function expectNoStack(error: unknown): void {
  expect(String((error as Error).message)).not.toMatch(/\n\s+at /);
}

describe.each(SDKS)("OpenAIChatClient errors a user can act on, with %s", (_, Sdk) => {
  it.each(["chat-completions", "responses"] as const)(
    "a 200 with a cut-off JSON body is OPENAI_INVALID_RESPONSE (%s)",
    async (api) => {
      const s = await serve({
        contentType: "application/json",
        raw: '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"mess',
      });
      const error = await clientOver(Sdk, s, { api })
        .complete(REQUEST)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAIResponseError);
      expect(NeedleworkError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: "OPENAI_INVALID_RESPONSE",
        baseURL: s.baseURL,
        cause: expect.any(SyntaxError),
      });
      expect((error as Error).message).toBe(
        `The server at ${s.baseURL} sent an invalid ${api} response (its JSON body is cut off or malformed). ` +
          "The connection may have been cut, or a proxy changed the body: check the server's logs and any proxy in between.",
      );
      expectNoStack(error);
    },
  );

  it("a 200 text/html page (a proxy or a wrong base URL) is OPENAI_NOT_JSON, not an empty completion", async () => {
    const s = await serve({
      contentType: "text/html",
      raw: "<!doctype html><title>Corporate proxy</title><p>Please sign in</p>",
    });
    const error = await clientOver(Sdk, s)
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "OPENAI_NOT_JSON" });
    const { message } = error as Error;
    expect(message).toContain(
      `The server at ${s.baseURL} answered the chat-completions request with 'text/html' instead of JSON`,
    );
    expect(message).toContain("proxy");
    expect(message).toContain("Check the base URL");
    expect(message).not.toContain("model name");
  });

  it("a 200 JSON body that is not a completion (or is empty) is OPENAI_INVALID_RESPONSE", async () => {
    const s = await serve({ body: { status: "ok", version: "1.2" } }, { contentType: "application/json", raw: "" });
    const client = clientOver(Sdk, s);
    await expect(client.complete(REQUEST)).rejects.toMatchObject({
      code: "OPENAI_INVALID_RESPONSE",
      message: expect.stringContaining("a JSON body without 'choices'"),
    });
    // openai 7 reads an empty body as no body, openai 6 as malformed JSON: the same error either way.
    await expect(client.complete(REQUEST)).rejects.toMatchObject({
      code: "OPENAI_INVALID_RESPONSE",
      message: expect.stringMatching(/an empty body|cut off or malformed/),
    });
  });

  it("a refused connection is one OPENAI_CONNECTION_FAILED naming the base URL, through the agent too", async () => {
    const baseURL = await refusedBaseURL();
    const client = new OpenAIChatClient({
      client: new Sdk({ baseURL, apiKey: "test", maxRetries: 0 }),
      model: "gpt-test",
    });
    const error = await client.complete(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAIResponseError);
    expect(error).toMatchObject({
      code: "OPENAI_CONNECTION_FAILED",
      baseURL,
      cause: expect.any(Sdk.APIConnectionError),
    });
    expect((error as Error).message).toBe(
      `Could not connect to ${baseURL} (ECONNREFUSED) for the chat-completions request, after the SDK's retries. ` +
        "Check that the server is running and listening there, the base URL (OPENAI_BASE_URL or { baseURL }), and any proxy or firewall in between.",
    );
    expectNoStack(error);
    const streamed = await (async () => {
      for await (const _part of client.stream(REQUEST)) void _part;
    })().catch((e: unknown) => e);
    expect(streamed).toMatchObject({ code: "OPENAI_CONNECTION_FAILED" });
  });

  it("HTTP status errors stay the SDK's errors with their status", async () => {
    const s = await serve(errorReply(500, "server_error", "The server had an error.", null));
    const error = await clientOver(Sdk, s, { maxRetries: 0 })
      .complete(REQUEST)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Sdk.InternalServerError);
    expect(error).toMatchObject({ status: 500 });
  });
});
