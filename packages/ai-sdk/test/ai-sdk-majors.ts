/**
 * The supported AI SDK majors, side by side for the same tests: `ai-v6` is `npm:ai@6` and `ai` is
 * AI SDK 7 (devDependencies), `ai-v5` only lends its LanguageModelV2 mock to the chat-client tests.
 * Each major's mocks speak its own model spec (V2, V3, V4); these helpers hide the shape changes
 * (nested usage and finish reason from V3 on) so the tests read the same for every major.
 */
import { it } from "vitest";

/** One scripted model turn: tool calls, or a text answer. */
export type ScriptStep =
  | { readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: string }> }
  | { readonly text: string };

/** A prompt message as the model spec sends it (the fields the tests read). */
export interface SentMessage {
  readonly role: string;
  readonly content: unknown;
}

/** What a model received in one call. */
export interface SentCall {
  readonly prompt: readonly SentMessage[];
  readonly tools?: ReadonlyArray<{
    readonly type: string;
    readonly name: string;
    readonly description?: string;
    readonly inputSchema?: unknown;
  }>;
}

/** A mock language model of one spec, and what it was sent. */
export interface ScriptedModel {
  readonly model: object;
  readonly calls: () => readonly SentCall[];
}

/** The fields of a `generateText` result the tests read. */
export interface GenerateResultLike {
  readonly text: string;
  readonly content: ReadonlyArray<{ readonly type: string; readonly approvalId?: string }>;
  readonly steps: ReadonlyArray<{
    readonly content: ReadonlyArray<{ readonly type: string }>;
    readonly toolResults: ReadonlyArray<{
      readonly toolName: string;
      readonly input: unknown;
      readonly output: unknown;
    }>;
  }>;
  readonly response: { readonly messages: readonly unknown[] };
}

/** One AI SDK major, as the tests use it. */
export interface AiSdkMajor {
  readonly major: 5 | 6 | 7;
  readonly spec: "v2" | "v3" | "v4";
  readonly generateText: (options: Record<string, unknown>) => Promise<GenerateResultLike>;
  readonly stepCountIs: (steps: number) => unknown;
  /** A mock model playing `steps`, one per call (generate and stream). */
  readonly scriptedModel: (steps: readonly ScriptStep[], provider?: string) => ScriptedModel;
  /** The options that hand `value` to a tool's `execute` as its context. */
  readonly contextOptions: (toolName: string, value: unknown) => Record<string, unknown>;
}

interface MockConstructor {
  new (options: {
    provider?: string;
    doGenerate?: unknown;
    doStream?: unknown;
  }): {
    doGenerateCalls: SentCall[];
    doStreamCalls: SentCall[];
  };
}

interface MajorModule {
  readonly ai: { generateText: unknown; stepCountIs: unknown };
  readonly mock: MockConstructor;
  readonly spec: "v2" | "v3" | "v4";
}

function usageOf(spec: string, input: number, output: number): unknown {
  if (spec === "v2") return { inputTokens: input, outputTokens: output, totalTokens: input + output };
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function finishOf(spec: string, reason: "stop" | "tool-calls"): unknown {
  return spec === "v2" ? reason : { unified: reason, raw: reason };
}

/** The `doGenerate` result of one step, in the model spec `spec`. */
export function generateResultOf(spec: string, step: ScriptStep): unknown {
  const content =
    "text" in step
      ? [{ type: "text", text: step.text }]
      : step.toolCalls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input }));
  return {
    content,
    finishReason: finishOf(spec, "text" in step ? "stop" : "tool-calls"),
    usage: usageOf(spec, 10, 5),
    warnings: [],
  };
}

/** The `doStream` parts of one step, in the model spec `spec`. */
export function streamPartsOf(spec: string, step: ScriptStep): unknown[] {
  const body =
    "text" in step
      ? [
          { type: "text-start", id: "t1" },
          ...step.text.split(/(?<= )/).map((delta) => ({ type: "text-delta", id: "t1", delta })),
          { type: "text-end", id: "t1" },
        ]
      : step.toolCalls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input }));
  const finish = {
    type: "finish",
    finishReason: finishOf(spec, "text" in step ? "stop" : "tool-calls"),
    usage: usageOf(spec, 10, 5),
  };
  return [{ type: "stream-start", warnings: [] }, ...body, finish];
}

function majorOf(major: 5 | 6 | 7, loaded: MajorModule): AiSdkMajor {
  const { spec } = loaded;
  return {
    major,
    spec,
    generateText: loaded.ai.generateText as AiSdkMajor["generateText"],
    stepCountIs: loaded.ai.stepCountIs as AiSdkMajor["stepCountIs"],
    contextOptions: (toolName, value) =>
      major === 7 ? { toolsContext: { [toolName]: value } } : { experimental_context: value },
    scriptedModel(steps, provider) {
      let generated = 0;
      let streamed = 0;
      const next = (i: number): ScriptStep => {
        const step = steps[i];
        if (!step) throw new Error(`the script has only ${steps.length} steps`);
        return step;
      };
      const model = new loaded.mock({
        ...(provider === undefined ? {} : { provider }),
        doGenerate: async () => generateResultOf(spec, next(generated++)),
        doStream: async () => {
          const parts = streamPartsOf(spec, next(streamed++));
          return { stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
        },
      });
      return { model, calls: () => [...model.doGenerateCalls, ...model.doStreamCalls] };
    },
  };
}

/** The runtime's Node major (AI SDK 7 needs 22+). */
export const nodeMajor = Number(process.versions.node.split(".")[0]);

/** Loads one major's `ai` and mock model (AI SDK 7 only on Node 22+; `undefined` otherwise). */
export async function loadAiSdkMajor(major: 5 | 6 | 7): Promise<AiSdkMajor | undefined> {
  if (major === 5)
    return majorOf(5, {
      ai: await import("ai-v5"),
      mock: (await import("ai-v5/test")).MockLanguageModelV2 as unknown as MockConstructor,
      spec: "v2",
    });
  if (major === 6)
    return majorOf(6, {
      ai: await import("ai-v6"),
      mock: (await import("ai-v6/test")).MockLanguageModelV3 as unknown as MockConstructor,
      spec: "v3",
    });
  if (nodeMajor < 22) return undefined; // said by describeWithAiSdk
  return majorOf(7, {
    ai: await import("ai"),
    mock: (await import("ai/test")).MockLanguageModelV4 as unknown as MockConstructor,
    spec: "v4",
  });
}

/**
 * Registers `suite` for AI SDK `major`, or, where this Node cannot load it (AI SDK 7 needs 22+), one
 * test in its place, skipped with that reason. A version gate, not a missing service: it never fails CI.
 */
export async function describeWithAiSdk(major: 5 | 6 | 7, suite: (sdk: AiSdkMajor) => void): Promise<void> {
  const sdk = await loadAiSdkMajor(major);
  if (sdk) suite(sdk);
  else
    it(`AI SDK ${major}`, (context) => {
      context.skip(`ai@${major} needs Node 22+, this is Node ${process.versions.node}`);
    });
}

/**
 * `it` for a case only AI SDK 7 has (`toolApproval`, `experimental_toolApprovalSecret`): against an
 * older major the test is still listed, skipped with that reason (a version gate: never failed on CI).
 */
export function itSinceAiSdk7(sdk: AiSdkMajor): (name: string, body: () => Promise<void> | void) => void {
  return (name, body) =>
    sdk.major >= 7
      ? it(name, body)
      : it(name, (context) => {
          context.skip(`AI SDK ${sdk.major} has no toolApproval; this case is for AI SDK 7`);
        });
}
