// One scenario, every exit of the process (docs/security.md): canary secrets are thrown by tools,
// written into failure messages and codes, the system prompt and tool arguments, and an MCP server's
// callback; then each exit is read as its consumer would read it, and each canary is looked for
// where it may and may not appear.
import "reflect-metadata";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  type ChatRequest,
  type ToolContext,
  ToolResult,
} from "@needlework/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
// The MCP exit through the official SDK client, set up by the MCP package's own test helper.
import { connect } from "../../../mcp/test/connect.js";
import {
  aesGcmCodec,
  FileRunStore,
  ScriptedChatClient,
  toServerSentEvents,
  toUiMessageStream,
  usingAgentFramework,
} from "../../src/index.js";

const THROWN = "sk-proj-THROWNcanary0123456789abcdefgh"; // in an exception's text: nobody outside the process
const FAILED = "hunter2-FAILEDcanary"; // in a failure message, as `password=...`: scrubbed everywhere
const CODE = "CODEcanary42"; // in a malformed error code: replaced by TOOL_ERROR everywhere
const SYSTEM = "SYSTEMcanary-instructions"; // the system prompt: the model, never the browser or the store
const ARGUMENT = "ARGUMENTcanary-c77"; // tool arguments and data: the model and the tool, never the store with a codec
const CALLBACK = "postgres://app:CALLBACKcanary@db/x"; // an MCP server callback's exception: never the client

@AgentFunctionGroup()
class CrmTools {
  @AgentFunction({ description: "Looks up a contact.", input: z.object({ id: z.string() }), readOnly: true })
  lookup({ id }: { id: string }): never {
    throw new Error(`contact db down for ${id}: ${THROWN}`);
  }

  @AgentFunction({ description: "Updates a contact.", input: z.object({ id: z.string() }) })
  update({ id }: { id: string }, _ctx: ToolContext) {
    return ToolResult.fail(`CRM refused ${id}, password=${FAILED}`, { code: `token=${CODE}` });
  }
}

/** The chat client the model sees through: it records every request. */
function recording(inner: ChatClient): { client: ChatClient; seen: ChatRequest[] } {
  const seen: ChatRequest[] = [];
  return { seen, client: { complete: (request) => (seen.push(request), inner.complete(request)) } };
}

function script() {
  const update = { name: "update", arguments: { id: ARGUMENT } };
  return new ScriptedChatClient([
    { toolCalls: [{ name: "lookup", arguments: { id: ARGUMENT } }, update] },
    { toolCalls: [update] },
    { toolCalls: [update] },
    { text: "Could not update the contact." },
  ]);
}

async function filesText(directory: string): Promise<string> {
  const files = await readdir(directory, { recursive: true });
  const texts = await Promise.all(files.map((f) => readFile(join(directory, f), "utf8").catch(() => "")));
  return texts.join("\n");
}

const absent = (where: string, text: string, canaries: readonly string[]) => {
  for (const canary of canaries) expect(text, `${canary} in ${where}`).not.toContain(canary);
};

describe("canary secrets through every exit", () => {
  it("each exit gets what it needs and no secret", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
    const records: unknown[] = [];
    const logs: unknown[] = [];
    const log = (...args: unknown[]) => void logs.push(args);
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(CrmTools)
      .usingResilience({ retry: { maxAttempts: 1 } })
      .usingToolResultMiddleware()
      .usingDiagnostics({ tracer, sink: (r) => void records.push(r), logger: { warn: log, error: log, info: log } })
      .buildAgentFactory();
    const directory = await mkdtemp(join(tmpdir(), "nw-canary-"));
    const store = new FileRunStore(directory, { codec: aesGcmCodec(randomBytes(32)) });
    const model = recording(script());
    const agent = factory.createAgent({
      name: "crm",
      instructions: `Sync contacts. ${SYSTEM}`,
      chatClient: model.client,
      store,
    });

    // The browser: a streamed run, as server-sent events.
    const stream = agent.stream("Update the contact.");
    const sse = await new Response(toServerSentEvents(stream)).text();
    const result = await stream.result;
    expect(result.status).toBe("dead_lettered");

    // The model read the failures honestly, and none of the secrets.
    const modelText = JSON.stringify(model.seen.map((r) => r.messages));
    expect(modelText).toContain(SYSTEM);
    expect(modelText).toContain(ARGUMENT);
    expect(modelText).toContain("TOOL_ERROR");
    absent("the model", modelText, [THROWN, FAILED, CODE]);

    // The browser stream: no system prompt, no conversation, no secret.
    expect(sse).toContain("event: run-end");
    absent("the SSE stream", sse, [THROWN, FAILED, CODE, SYSTEM]);

    // The journal and the dead letters, encoded by the store's codec: no canary on disk at all.
    expect((await store.deadLetters.list()).length).toBe(1);
    absent("the store's files", await filesText(directory), [THROWN, FAILED, CODE, SYSTEM, ARGUMENT]);
    // ...and read back through the codec, the dead letter holds no exception text either.
    absent("the dead letters", JSON.stringify(await store.deadLetters.list()), [THROWN, FAILED, CODE]);

    // Traces, diagnostics records and logs: default detectors, with or without usingRedaction().
    const spans = JSON.stringify(
      exporter.getFinishedSpans().map((s) => ({ a: s.attributes, e: s.events, s: s.status, n: s.name })),
    );
    absent("the traces", spans, [THROWN, FAILED, CODE]);
    absent("the diagnostics records", JSON.stringify(records), [THROWN, FAILED, CODE]);
    absent("the logs", JSON.stringify(logs), [THROWN, FAILED, CODE]);

    // The run result stays on the server: the conversation (system prompt included) but no secret.
    absent("the run result", JSON.stringify(result), [THROWN, FAILED, CODE]);

    // The UI-message stream of another run: the same projection.
    const ui = factory.createAgent({ name: "crm", instructions: `Sync. ${SYSTEM}`, chatClient: script() });
    const chunks: unknown[] = [];
    for await (const chunk of toUiMessageStream(ui.stream("Update."))) chunks.push(chunk);
    absent("the UI-message stream", JSON.stringify(chunks), [THROWN, FAILED, CODE, SYSTEM]);
  });

  it("an MCP client never reads a server callback's exception", async () => {
    const client = await connect({
      runId: () => {
        throw new Error(`tenant lookup failed: ${CALLBACK}`);
      },
    });
    const answer = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(answer.isError).toBe(true);
    absent("the MCP client", JSON.stringify(answer), [CALLBACK]);
  });
});
