import { usingAgentFramework } from "@needlework/workflows";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { completion, errorReply, useChatCompletionsServer } from "../test/chat-completions-server.js";
import { Warehouse, WarehouseTools } from "../test/fixtures.js";
import { clientOver, SDKS } from "../test/sdks.js";
import type { OpenAIChatClient } from "./openai-chat-client.js";

const serve = useChatCompletionsServer();

/** An agent over `chatClient` whose spans go to the OpenTelemetry SDK's in-memory exporter. */
function tracedAgent(chatClient: OpenAIChatClient) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
  const factory = usingAgentFramework(
    container.createChildContainer().register(Warehouse, { useValue: new Warehouse() }),
  )
    .addAgentFunctions(WarehouseTools)
    .usingToolResultMiddleware()
    .usingDiagnostics({ tracer })
    .buildAgentFactory();
  const agent = factory.createAgent({ name: "warehouse", instructions: "You manage stock.", chatClient });
  const span = (name: string): ReadableSpan => {
    const found = exporter.getFinishedSpans().filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one '${name}' span, got ${found.length}`);
    return found[0]!;
  };
  return { agent, span };
}

describe.each(SDKS)("OpenAIChatClient in OpenTelemetry GenAI spans, with %s", (_, Sdk) => {
  it("chat and invoke_agent spans name the provider, the server, the request settings and the response", async () => {
    const s = await serve({
      body: completion({ id: "chatcmpl-77", content: "7 units.", usage: { prompt: 30, completion: 3 } }),
    });
    const { agent, span } = tracedAgent(clientOver(Sdk, s, { temperature: 0, maxTokens: 256 }));
    await agent.run("How many SKU-1?");
    const port = Number(new URL(s.baseURL).port);
    expect(span("chat gpt-test").attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.request.temperature": 0,
      "gen_ai.request.max_tokens": 256,
      "server.address": "127.0.0.1",
      "server.port": port,
      "gen_ai.response.id": "chatcmpl-77",
      "gen_ai.response.model": "gpt-test-2025-01-01",
      "gen_ai.usage.input_tokens": 30,
    });
    expect(span("invoke_agent warehouse").attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
    });
  });

  it("an HTTP 500 from the model server sets error.type '500', not UPSTREAM_ERROR", async () => {
    const s = await serve(
      errorReply(500, "server_error", "The server had an error while processing your request.", null),
    );
    const { agent, span } = tracedAgent(clientOver(Sdk, s, { maxRetries: 0 }));
    await expect(agent.run("How many SKU-1?")).rejects.toMatchObject({ status: 500 });
    expect(span("chat gpt-test").attributes["error.type"]).toBe("500");
    expect(span("chat gpt-test").status.code).toBe(2);
    expect(span("invoke_agent warehouse").attributes["error.type"]).toBe("500");
  });

  it("an answer that is not JSON sets error.type to the client's code", async () => {
    const s = await serve({ contentType: "text/html", raw: "<html>proxy</html>" });
    const { agent, span } = tracedAgent(clientOver(Sdk, s));
    await expect(agent.run("How many SKU-1?")).rejects.toMatchObject({ code: "OPENAI_NOT_JSON" });
    expect(span("chat gpt-test").attributes["error.type"]).toBe("OPENAI_NOT_JSON");
  });
});
