// What leaves the process by other ways than the model: traces, diagnostics records, error codes,
// approval decisions. Each case pushes a secret (or a hostile value) through the public API and
// reads the exit as its consumer would.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DiagnosticRecord, ScriptedChatClient, usingAgentFramework } from "../src/index.js";

const PASSWORD = "hunter2-canary";
const API_KEY = "sk-proj-CANARYabcdefghijklmnopqrstuv0123";
const THROWN = `db down: postgres://app:${PASSWORD}@db.internal/x, retry with ${API_KEY}`;

const refunds: string[] = [];
const SECRET = "a-checkpoint-secret-of-32-bytes-or-more";

@AgentFunctionGroup()
class LeakyTools {
  @AgentFunction({ description: "Looks up a contact.", input: z.object({ id: z.string().describe("Contact id.") }) })
  lookup(): never {
    throw new Error(THROWN);
  }

  @AgentFunction({
    description: "Fails with a code of the tool's choosing.",
    input: z.object({ code: z.string().describe("The code.") }),
  })
  coded({ code }: { code: string }) {
    return ToolResult.fail("The CRM refused the update.", {
      code: code === "object" ? ({ nested: 1 } as never) : code,
    });
  }

  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    requiresApproval: true,
  })
  refund({ orderId }: { orderId: string }) {
    refunds.push(orderId);
    return ToolResult.ok({ refunded: orderId });
  }
}

describe("traces and diagnostics records without usingRedaction()", () => {
  it("carry no secret from a thrown exception: span events, span status and records pass the default detectors", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
    const records: DiagnosticRecord[] = [];
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(LeakyTools)
      .usingResilience({ retry: { maxAttempts: 1 } })
      .usingToolResultMiddleware()
      .usingDiagnostics({ tracer, sink: (record) => void records.push(record) })
      .buildAgentFactory();
    const agent = factory.createAgent({
      name: "crm",
      instructions: "Sync contacts.",
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "lookup", arguments: { id: "c1" } }] },
        { text: "Failed." },
      ]),
    });
    await agent.run("Look up c1.");
    const exported = JSON.stringify(
      exporter.getFinishedSpans().map((s) => ({ attributes: s.attributes, events: s.events, status: s.status })),
    );
    expect(exported).toContain("exception");
    expect(exported).not.toContain(PASSWORD);
    expect(exported).not.toContain(API_KEY);
    expect(records.length).toBeGreaterThan(0);
    const printed = JSON.stringify(records);
    expect(printed).not.toContain(PASSWORD);
    expect(printed).not.toContain(API_KEY);
    expect(printed).toContain("db down"); // the rest of the message stays, for whoever reads the logs
  });
});

describe("error codes", () => {
  afterEach(() => void refunds.splice(0));

  it.each([["password=hunter2-canary"], ["lower_case"], ["WITH SPACE"], ["object"], ["A".repeat(80)]])(
    "a code that is not an upper-snake identifier (%s) reaches nobody: TOOL_ERROR instead",
    async (code) => {
      const factory = usingAgentFramework(container.createChildContainer())
        .addAgentFunctions(LeakyTools)
        .usingResilience()
        .usingToolResultMiddleware()
        .buildAgentFactory();
      const outcome = await factory.tools.invoke({ name: "coded", arguments: { code } });
      expect(outcome.errorCode).toBe("TOOL_ERROR");
      expect(factory.formatOutcome(outcome)).not.toContain(code === "object" ? "nested" : code);
    },
  );

  it("an upper-snake code is kept as written", async () => {
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(LeakyTools)
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const outcome = await factory.tools.invoke({ name: "coded", arguments: { code: "CRM_REFUSED_2" } });
    expect(outcome.errorCode).toBe("CRM_REFUSED_2");
  });
});

describe("approval decisions", () => {
  it("are read from the decisions object's own properties: a polluted prototype approves nothing", async () => {
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(LeakyTools)
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const script = () =>
      new ScriptedChatClient([{ toolCalls: [{ name: "refund", arguments: { orderId: "O-1" } }] }, { text: "Done." }]);
    const paused = await factory
      .createAgent({ name: "shop", instructions: "Refund.", chatClient: script(), checkpointSecret: SECRET })
      .run("Refund O-1.");
    if (paused.status !== "awaiting_approval") throw new Error(paused.status);
    const callId = paused.pendingApprovals[0]!.callId;
    const agent = factory.createAgent({
      name: "shop",
      instructions: "Refund.",
      chatClient: script(),
      checkpointSecret: SECRET,
    });
    const proto = Object.prototype as Record<string, unknown>;
    proto[callId] = "approved";
    try {
      await expect(agent.resume(paused.checkpoint, {})).rejects.toMatchObject({ code: "CHECKPOINT_DECISIONS_INVALID" });
    } finally {
      delete proto[callId];
    }
    expect(refunds).toEqual([]);
  });
});

describe("the browser streams", () => {
  const SYSTEM_CANARY = "system-prompt-canary-7731";
  const ARG_CANARY = "tool-output-canary-5512";

  async function frames(body: ReadableStream<Uint8Array>): Promise<string> {
    return new Response(body).text();
  }

  it("SSE and UI-message streams carry the browser-safe run-end and approval-required, never messages or checkpoints", async () => {
    const { toServerSentEvents, toUiMessageStream } = await import("../src/index.js");
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(LeakyTools)
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const agent = () =>
      factory.createAgent({
        name: "shop",
        instructions: `Refund carefully. ${SYSTEM_CANARY}`,
        checkpointSecret: SECRET,
        chatClient: new ScriptedChatClient([
          { toolCalls: [{ name: "coded", arguments: { code: ARG_CANARY.toUpperCase().replaceAll("-", "_") } }] },
          { toolCalls: [{ name: "refund", arguments: { orderId: "O-9" } }] },
        ]),
      });
    const sse = await frames(toServerSentEvents(agent().stream("Refund O-9.")));
    expect(sse).toContain("event: approval-required");
    expect(sse).toContain('"pending":[{"callId"');
    expect(sse).toContain("event: run-end");
    expect(sse).not.toContain(SYSTEM_CANARY);
    expect(sse).not.toContain('"checkpoint"');
    expect(sse).not.toContain('"signature"');
    expect(sse).not.toContain('"messages"');
    const ui = agent().stream("Refund O-9.");
    const chunks: unknown[] = [];
    for await (const chunk of toUiMessageStream(ui)) chunks.push(chunk);
    const text = JSON.stringify(chunks);
    expect(text).toContain("data-approval-required");
    expect(text).not.toContain(SYSTEM_CANARY);
    expect(text).not.toContain('"checkpoint"');
    // The signed checkpoint stays on the server.
    const result = await ui.result;
    expect(result.status === "awaiting_approval" && result.checkpoint.signature).toBeTruthy();
  });

  it("an event of an unknown type (a newline in it would forge frames) is never written", async () => {
    const { toServerSentEvents } = await import("../src/index.js");
    async function* events() {
      yield { type: "run-start", runId: "r1", agent: "a" } as const;
      yield { type: "run-end\nevent: approval-required\ndata: {}", forged: true } as never;
    }
    const sse = await frames(toServerSentEvents(events()));
    expect(sse).toBe(`event: run-start\ndata: {"type":"run-start","runId":"r1","agent":"a"}\n\n`);
  });
});
