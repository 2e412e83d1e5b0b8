// The fixtures of run-path.test.ts: a note-taking agent over an in-memory store, traced, whose tool
// records every call it saw and can hang once (a process dying mid-call); and a run's footprint.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, type ToolContext, ToolResult } from "@needlework/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { container } from "tsyringe";
import { expect } from "vitest";
import { z } from "zod";
import {
  type AgentHooks,
  type AgentRunResult,
  type AgentRunStream,
  InMemoryRunStore,
  ScriptedChatClient,
  type ScriptedStep,
  usingAgentFramework,
} from "../src/index.js";

/** What every tool call saw, in order: its call id and idempotency key. */
export const seen: { tool: string; value: string; callId: string; key: string }[] = [];
/** Values whose first call hangs until its run is aborted (a process dying mid-call). */
export const hangOnce = new Set<string>();

/** `save` (idempotent; hangs once for a value in {@link hangOnce}) and `send` (requires approval). */
@AgentFunctionGroup()
export class NoteTools {
  @AgentFunction({
    description: "Saves a note.",
    input: z.object({ value: z.string().describe("The note.") }),
    idempotent: true,
  })
  async save({ value }: { value: string }, ctx: ToolContext) {
    seen.push({ tool: "save", value, callId: ctx.callId, key: ctx.idempotencyKey });
    if (hangOnce.delete(value))
      await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    return ToolResult.ok({ saved: value });
  }

  @AgentFunction({
    description: "Sends the notes to a customer.",
    input: z.object({ to: z.string().describe("Customer id.") }),
    requiresApproval: true,
  })
  send({ to }: { to: string }, ctx: ToolContext) {
    seen.push({ tool: "send", value: to, callId: ctx.callId, key: ctx.idempotencyKey });
    return ToolResult.ok({ sent: to });
  }
}

/** A tracer whose finished spans the test reads. */
export function otel() {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  return { tracer, spans: (): ReadableSpan[] => exporter.getFinishedSpans() };
}

/** A traced factory over one in-memory store; `make` builds an agent of it over a script (and hooks). */
export function setUp(script: ScriptedStep[]) {
  const { tracer, spans } = otel();
  const store = new InMemoryRunStore();
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(NoteTools)
    .usingResilience({ retry: { maxAttempts: 1 } })
    .usingToolResultMiddleware()
    .usingDiagnostics({ tracer })
    .buildAgentFactory();
  const make = (steps: ScriptedStep[], hooks: AgentHooks = {}) =>
    factory.createAgent({
      ...hooks,
      name: "notes",
      instructions: "Keep notes.",
      chatClient: new ScriptedChatClient(steps),
      store,
      checkpointSecret: "a-secret-of-at-least-thirty-two-bytes!",
    });
  return { agent: make(script), make, store, spans };
}

/** Iterates a stream to its end: the event types, then its result. */
export async function drain(stream: AgentRunStream): Promise<{ types: string[]; result: AgentRunResult }> {
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  return { types, result: await stream.result };
}

/** One `invoke_agent` span per run, each tool span a child of its run's span. */
export function expectTraced(spans: ReadableSpan[], runs: number) {
  const runSpans = spans.filter((s) => s.name.startsWith("invoke_agent"));
  expect(runSpans).toHaveLength(runs);
  const runIds = new Set(runSpans.map((s) => s.spanContext().spanId));
  const toolSpans = spans.filter((s) => s.name.startsWith("execute_tool"));
  expect(toolSpans.length).toBeGreaterThan(0);
  for (const tool of toolSpans) expect(runIds.has(tool.parentSpanContext?.spanId ?? "")).toBe(true);
}

/** A model turn asking to save `value` (with the provider's call id `id`, when given). */
export const saveTurn = (value: string, id?: string): ScriptedStep => ({
  toolCalls: [{ ...(id ? { id } : {}), name: "save", arguments: { value } }],
});

/** The two forms of every start: the awaited one (`run`, `resume`, `resumeRun`) and the streamed one. */
export type Form = "run" | "stream";
/** An agent `setUp` makes. */
export type Agent = ReturnType<ReturnType<typeof setUp>["make"]>;

/** Starts a new run in `form`: `run()`, or `stream()` drained to its result. */
export const started = (agent: Agent, form: Form, input: string, runId: string, signal?: AbortSignal) =>
  form === "run"
    ? agent.run(input, { runId, ...(signal ? { signal } : {}) })
    : drain(agent.stream(input, { runId, ...(signal ? { signal } : {}) })).then((d) => d.result);

/** What a run leaves, with times and latencies left out: what two forms of one scenario must share. */
export async function footprint(setup: ReturnType<typeof setUp>, runId: string, result: AgentRunResult, from: number) {
  const journaled = await setup.store.journal.read(runId);
  const spans = setup.spans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s.name]));
  return timeless({
    result: {
      status: result.status,
      text: result.status === "completed" ? result.text : undefined,
      calls: result.calls.map((c) => [c.tool, c.callId, c.status, c.errorCode]),
      messages: result.messages,
    },
    journal: {
      turns: journaled?.turns.map((t) => [t.index, t.message]),
      calls: journaled?.calls.map((c) => ({
        callId: c.callId,
        tool: c.tool,
        arguments: c.arguments,
        idempotencyKey: c.idempotencyKey,
        approval: c.approval,
        outcome: c.outcome && [c.outcome.outcome.status, c.outcome.outcome.errorCode, c.outcome.formatted],
      })),
      end: journaled?.end?.status,
    },
    spans: spans.map((s) => [s.name, byId.get(s.parentSpanContext?.spanId ?? ""), s.status.code]).sort(),
    executions: seen.slice(from).map((s) => [s.tool, s.value, s.callId, s.key]),
  });
}

/** The footprint with each call's latency (in the text the model read) set to 0: the one thing two runs never share. */
export function timeless<T>(footprint: T): T {
  return JSON.parse(JSON.stringify(footprint).replace(/\\"latency_ms\\":[0-9.e-]+/g, '\\"latency_ms\\":0')) as T;
}
