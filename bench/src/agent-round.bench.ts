import { ScriptedChatClient, type ScriptedToolCall } from "@needlework/core";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";
import { formatNs } from "./lib/per-call.js";
import { aiSdkTools } from "./lib/peers.js";
import { documentedStack } from "./lib/stacks.js";

const CALLS = 100;
const FINAL_TEXT = "All 100 sums are done.";

// The model's JSON text arguments, as a provider sends them; distinct per call.
const argumentsOf = (i: number): string => JSON.stringify({ a: i, b: i + 1 });
const scriptedCalls: ScriptedToolCall[] = Array.from({ length: CALLS }, (_, i) => ({
  id: `call_${i}`,
  name: "add",
  arguments: argumentsOf(i),
}));

// AI SDK 7's model spec (v4): usage and finish reason are structured.
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const toolCallTurn = {
  content: Array.from({ length: CALLS }, (_, i) => ({
    type: "tool-call" as const,
    toolCallId: `call_${i}`,
    toolName: "add",
    input: argumentsOf(i),
  })),
  finishReason: { unified: "tool-calls" as const, raw: "tool-calls" },
  usage,
  warnings: [],
};
const finalTurn = {
  content: [{ type: "text" as const, text: FINAL_TEXT }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage,
  warnings: [],
};

const NEEDLEWORK = "needlework agent.run: 100-call round + final answer (documented stack, maxConcurrency 100)";
const NEEDLEWORK_DEFAULT = "needlework agent.run: same, default maxConcurrency (8)";
const AI_SDK = "AI SDK 7 generateText: 100-call step + final answer (MockLanguageModelV4)";

export default defineBenchmark({
  name: "agent-round",
  description: `One run of ${CALLS} parallel add() calls requested by a scripted model in one turn, then a final answer: wall time per run and per tool call, needlework's agent loop beside the Vercel AI SDK's generateText over the same tool calls.`,
  options: { time: 2000, iterations: 20, warmupTime: 500 },
  async cases() {
    const factory = documentedStack();
    const runNeedlework = async (maxConcurrency?: number) => {
      const chatClient = new ScriptedChatClient([{ toolCalls: scriptedCalls }, { text: FINAL_TEXT }]);
      const agent = factory.createAgent({
        name: "adder",
        instructions: "Add the pairs.",
        chatClient,
        ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
      });
      return agent.run("Add these 100 pairs.");
    };
    const runAiSdk = () =>
      generateText({
        model: new MockLanguageModelV4({ doGenerate: [toolCallTurn, finalTurn] }),
        tools: { add: aiSdkTools.add },
        prompt: "Add these 100 pairs.",
        stopWhen: stepCountIs(2),
      });

    for (const concurrency of [CALLS, undefined]) {
      const run = await runNeedlework(concurrency);
      const ok = run.calls.filter((c) => c.status === "ok").length;
      if (run.status !== "completed" || ok !== CALLS || run.text !== FINAL_TEXT)
        throw new Error(`needlework round: ${run.status}, ${ok} ok calls, text ${JSON.stringify(run.text)}`);
    }
    const ai = await runAiSdk();
    const results = ai.steps[0]?.toolResults ?? [];
    if (ai.text !== FINAL_TEXT || results.length !== CALLS || results.some((r, i) => r.output !== 2 * i + 1))
      throw new Error(`AI SDK round: ${results.length} results, text ${JSON.stringify(ai.text)}`);

    return [
      { name: NEEDLEWORK, calls: CALLS, fn: () => runNeedlework(CALLS) },
      { name: NEEDLEWORK_DEFAULT, calls: CALLS, fn: () => runNeedlework() },
      { name: AI_SDK, calls: CALLS, fn: runAiSdk },
    ];
  },
  goals(results) {
    const goals: Goal[] = [];
    const round = results.get(NEEDLEWORK);
    if (round)
      goals.push({
        goal: "a 100-call round plus final answer under 1.5 ms",
        measured: `${round.medianMs.toFixed(3)} ms (${formatNs(round.nsPerCall)} per call)`,
        met: round.medianMs < 1.5,
      });
    return goals;
  },
  notes: () => ({
    calls: CALLS,
    arguments: "JSON text, distinct per call",
    model: "ScriptedChatClient / MockLanguageModelV2, no network",
  }),
});
