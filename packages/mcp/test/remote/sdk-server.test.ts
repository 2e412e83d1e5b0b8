// connectMcpServer against the MCP SDK's own server, no mocks: over Streamable HTTP (a real HTTP
// server on 127.0.0.1, in this process, so the test sees what the server saw) and over stdio (a
// child process, crashed and restarted).
import { fileURLToPath } from "node:url";
import { formatToolOutcome, type ToolInvoker } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, IDEMPOTENCY_KEY_META, type McpServerConnection } from "../../src/index.js";
import { type SdkHttpServer, type SdkServerEvents, startSdkHttpServer } from "./sdk-server.mjs";

const TOKEN = "Bearer sk-live-4f9c2a7e1b3d5f6a8c0e2b4d6f8a1c3e";

function pipeline(server: McpServerConnection, maxAttempts = 2): ToolInvoker {
  return usingAgentFramework(container.createChildContainer())
    .addTools(server.tools)
    .usingResilience({ retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 1, jitter: 0 } })
    .usingToolResultMiddleware()
    .buildAgentFactory({ printDiagnostics: false }).tools;
}

describe("connectMcpServer over Streamable HTTP (the MCP SDK's server)", () => {
  const events: SdkServerEvents = { calls: new Map(), cancelled: [] };
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  let http: SdkHttpServer;
  let sdk: McpServerConnection;
  let tools: ToolInvoker;

  beforeAll(async () => {
    http = await startSdkHttpServer(events);
    sdk = await connectMcpServer("sdk", { url: http.url, headers: { authorization: TOKEN } }, { tracer });
    tools = pipeline(sdk);
  });
  afterAll(async () => {
    await sdk.close();
    await http.close();
  });

  it("lists the server's tools as needlework tools named server_tool, untrusted and with effects by default", () => {
    expect(sdk.tools.map((t) => t.name)).toEqual([
      "sdk_echo",
      "sdk_fail",
      "sdk_pid",
      "sdk_strict",
      "sdk_meta",
      "sdk_structured",
      "sdk_picture",
      "sdk_media",
      "sdk_nothing",
      "sdk_wait",
    ]);
    const echo = tools.definitions.find((d) => d.name === "sdk_echo")!;
    expect(echo.flags).toMatchObject({ readOnly: false, reads: "untrusted", effects: "external", idempotent: false });
    expect(echo.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("ok: JSON text is data; the outcome names the server and is marked untrusted", async () => {
    const outcome = await tools.invoke({ name: "sdk_echo", arguments: { text: "hello" } });
    expect(outcome).toMatchObject({ status: "ok", data: { said: "hello" } });
    expect(outcome.metadata).toMatchObject({ server: "sdk", provenance: "untrusted", attempts: 1 });
  });

  it("isError: a SQLSTATE or an HTTP status in the text gives the code; other text is REMOTE_TOOL_ERROR", async () => {
    const sql = await tools.invoke({ name: "sdk_fail", arguments: { kind: "sql" } });
    expect(sql).toMatchObject({ status: "error", errorCode: "DATABASE_ERROR", retriable: false });
    expect(sql.message).toBe("The database reported an error (SQLSTATE 42P01).");
    const before = events.calls.get("fail") ?? 0;
    const http503 = await tools.invoke({ name: "sdk_fail", arguments: { kind: "http" } });
    // 503 proves nothing was applied: retried even for a tool that is not idempotent.
    expect(http503).toMatchObject({ errorCode: "UPSTREAM_UNAVAILABLE", retriable: true, metadata: { attempts: 2 } });
    expect(events.calls.get("fail")).toBe(before + 2);
    const plain = await tools.invoke({ name: "sdk_fail", arguments: { kind: "plain" } });
    expect(plain).toMatchObject({ errorCode: "REMOTE_TOOL_ERROR", retriable: false, metadata: { attempts: 1 } });
    expect(plain.message).toBe("Tool 'fail' on server 'sdk' failed: the warehouse is closed on Sundays");
  });

  it("a schema violation is refused before the call: the server never sees it", async () => {
    const outcome = await tools.invoke({ name: "sdk_strict", arguments: { n: 1.5 } });
    expect(outcome).toMatchObject({ status: "error", errorCode: "INVALID_ARGUMENTS" });
    expect(outcome.message).toContain("n: must be integer");
    expect(events.calls.get("strict")).toBeUndefined();
    expect((await tools.invoke({ name: "sdk_strict", arguments: { n: 2 } })).data).toEqual({ n: 2 });
  });

  it("sends the call's idempotency key in _meta", async () => {
    const outcome = await tools.invoke({ name: "sdk_meta", arguments: {} }, { runId: "run-7" });
    expect(outcome.data).toEqual({ key: outcome.metadata.idempotencyKey });
    expect(outcome.metadata.idempotencyKey).toMatch(/^run-7:/);
    expect(IDEMPOTENCY_KEY_META).toBe("io.needlework/idempotency-key");
  });

  it("structuredContent is the data, checked against the tool's outputSchema", async () => {
    expect(await tools.invoke({ name: "sdk_structured", arguments: { valid: true } })).toMatchObject({
      status: "ok",
      data: { total: 3 },
    });
    const invalid = await tools.invoke({ name: "sdk_structured", arguments: { valid: false } });
    expect(invalid).toMatchObject({ status: "error", errorCode: "OUTPUT_INVALID" });
    expect(JSON.stringify(invalid)).not.toContain("three");
  });

  it("an image reaches the model as a description, never as base64; empty content is ok with no data", async () => {
    const picture = await tools.invoke({ name: "sdk_picture", arguments: {} });
    expect(picture.data).toEqual({ type: "image", mimeType: "image/png", bytes: 1024 });
    expect(formatToolOutcome(picture)).not.toContain(Buffer.alloc(12, 7).toString("base64"));
    const nothing = await tools.invoke({ name: "sdk_nothing", arguments: {} });
    expect(nothing.status).toBe("ok");
    expect(nothing.data).toBeUndefined();
  });

  it("an abort sends notifications/cancelled: the server sees the cancellation", async () => {
    const controller = new AbortController();
    const waiting = new Promise<void>((resolve) => (events.waiting = resolve));
    const cancelled = new Promise<void>((resolve) => (events.onCancelled = resolve));
    const call = tools.invoke({ name: "sdk_wait", arguments: {} }, { signal: controller.signal });
    await waiting;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await cancelled;
    expect(events.cancelled).toHaveLength(1);
  });

  it("tools/list_changed lists again: an added tool appears in `tools`, a removed one answers UNKNOWN_TOOL", async () => {
    const late = events.server!.registerTool("late", { description: "Came later.", inputSchema: {} }, () => ({
      content: [{ type: "text", text: "late" }],
    }));
    await expect.poll(() => sdk.tools.map((t) => t.name)).toContain("sdk_late");
    const added = sdk.tools.find((t) => t.name === "sdk_late")!;
    const later = pipeline({ ...sdk, tools: [added] } as McpServerConnection);
    expect((await later.invoke({ name: "sdk_late", arguments: {} })).data).toBe("late");
    late.remove();
    await expect.poll(() => sdk.tools.map((t) => t.name)).not.toContain("sdk_late");
    expect(await later.invoke({ name: "sdk_late", arguments: {} })).toMatchObject({ errorCode: "UNKNOWN_TOOL" });
  });

  it("an expired session is re-initialized once, and the call goes through", async () => {
    await tools.invoke({ name: "sdk_echo", arguments: { text: "before" } });
    const first = sdk.sessionId;
    expect(first).toBeTypeOf("string");
    http.expire(first!);
    const outcome = await tools.invoke({ name: "sdk_echo", arguments: { text: "after" } });
    expect(outcome).toMatchObject({ status: "ok", data: { said: "after" }, metadata: { attempts: 1 } });
    expect(sdk.sessionId).not.toBe(first);
  });

  it("makes client spans with the OpenTelemetry MCP attributes, and the bearer token is nowhere", async () => {
    exporter.reset();
    const outcome = await tools.invoke({ name: "sdk_fail", arguments: { kind: "plain" } });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(["tools/call fail"]);
    expect(spans[0]!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "mcp.session.id": sdk.sessionId,
      "gen_ai.tool.name": "fail",
      "needlework.mcp.server": "sdk",
      "network.transport": "tcp",
      "server.address": "127.0.0.1",
      "error.type": "REMOTE_TOOL_ERROR",
    });
    const secret = TOKEN.slice("Bearer ".length);
    const seen = JSON.stringify([outcome, formatToolOutcome(outcome), spans.map((s) => [s.attributes, s.events]), sdk]);
    expect(seen).not.toContain(secret);
    expect(JSON.stringify(sdk.tools.map((t) => t.descriptor))).not.toContain(secret);
  });
});

const fixture = fileURLToPath(new URL("./sdk-server.mjs", import.meta.url));

describe("connectMcpServer over stdio (the MCP SDK's server as a child process)", () => {
  let sdk: McpServerConnection;
  let tools: ToolInvoker;

  beforeAll(async () => {
    sdk = await connectMcpServer("kid", { command: process.execPath, args: [fixture], stderr: "ignore" });
    tools = pipeline(sdk);
  }, 20_000);
  afterAll(() => sdk.close());

  it("calls a tool of the child", async () => {
    expect(sdk.tools.map((t) => t.name)).toContain("kid_crash");
    expect(await tools.invoke({ name: "kid_echo", arguments: { text: "hi" } })).toMatchObject({
      status: "ok",
      data: { said: "hi" },
    });
  });

  it("a crashed child mid-call is OUTCOME_UNKNOWN (the call may have landed), and the next call runs in a restarted child", async () => {
    const before = (await tools.invoke({ name: "kid_pid", arguments: {} })).data as { pid: number };
    const crashed = await tools.invoke({ name: "kid_crash", arguments: {} });
    // Not idempotent: the crash may have come after an effect, so it is neither repeated nor told as retriable.
    expect(crashed).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
    expect(crashed.metadata.attempts).toBe(1);
    expect(() => process.kill(before.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    const after = (await tools.invoke({ name: "kid_pid", arguments: {} })).data as { pid: number };
    expect(after.pid).not.toBe(before.pid);
  });

  it("close() ends the child; its tools answer UPSTREAM_UNAVAILABLE from then on", async () => {
    const { pid } = (await tools.invoke({ name: "kid_pid", arguments: {} })).data as { pid: number };
    await sdk.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    const outcome = await tools.invoke({ name: "kid_echo", arguments: { text: "late" } });
    expect(outcome).toMatchObject({ errorCode: "UPSTREAM_UNAVAILABLE", retriable: false });
  });
});
