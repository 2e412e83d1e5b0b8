import { tool as langchainTool } from "@langchain/core/tools";
import { RunContext, tool as openaiTool } from "@openai/agents";
import { asSchema, tool as aiTool } from "ai";
import type { z } from "zod";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";
import { expectResult, formatNs, perCall } from "./lib/per-call.js";
import { orderSchema, querySchema, ShapeTools, shapeBodies, sumSchema } from "./lib/shape-tools.js";
import { documentedStack, fullStack } from "./lib/stacks.js";

// Results of the shapes users return, each through the direct call, needlework's documented and full
// stacks, and each peer's own validate-and-execute path at its current major, every one ending in the
// text the model reads (needlework's formatted outcome; the peers' JSON of the output).

const SHAPES = [
  { key: "sum", label: "{ sum }", schema: sumSchema, input: { a: 2, b: 3 }, calls: 1000, slow: 100 },
  { key: "order", label: "1 KB order", schema: orderSchema, input: { orderId: "ORD-12345" }, calls: 500, slow: 100 },
  { key: "records10k", label: "10 KB list", schema: querySchema, input: { query: "acme" }, calls: 100, slow: 50 },
  { key: "records100k", label: "100 KB list", schema: querySchema, input: { query: "acme" }, calls: 20, slow: 10 },
] as const;

const ROW = {
  direct: (s: string) => `${s}: direct call + JSON.stringify (floor)`,
  documented: (s: string) => `${s}: needlework documented stack + format`,
  full: (s: string) => `${s}: needlework full stack + format`,
  aiSdk: (s: string) => `${s}: AI SDK 7 validate + execute + JSON`,
  openai: (s: string) => `${s}: OpenAI Agents SDK 0.20 tool.invoke + JSON`,
  langchain: (s: string) => `${s}: LangChain 1.x tool().invoke + JSON`,
} as const;

const runContext = new RunContext();
const executeOptions = { toolCallId: "call_1", messages: [], context: undefined };

export default defineBenchmark({
  name: "tool-result-shapes",
  description:
    "Per-call cost of tools returning the shapes users return ({ sum }, a 1 KB order with line items, a 10 KB and a 100 KB list of records), through to the text the model reads: the direct call plus JSON.stringify is the floor; needlework's documented and full stacks; the AI SDK 7, OpenAI Agents SDK 0.20 and LangChain 1.x paths.",
  options: { time: 1000, iterations: 10, warmupTime: 250 },
  async cases() {
    const documented = documentedStack(undefined, ShapeTools);
    const full = fullStack(undefined, ShapeTools);
    const cases = [];
    for (const shape of SHAPES) {
      const body = shapeBodies[shape.key] as (input: unknown) => unknown;
      const schema = shape.schema as z.ZodType;
      const call = { name: shape.key, arguments: shape.input };
      const json = JSON.stringify(shape.input);
      const ai = aiTool({
        description: shape.label,
        inputSchema: schema,
        execute: async (input: unknown) => body(input),
      });
      const aiSchema = asSchema(ai.inputSchema);
      const aiRun = async () => {
        const parsed = await aiSchema.validate!(shape.input);
        if (!parsed.success) throw parsed.error;
        return JSON.stringify(await ai.execute!(parsed.value, executeOptions as never));
      };
      const oa = openaiTool({
        name: shape.key,
        description: shape.label,
        parameters: schema as never,
        execute: (input) => body(input),
      });
      // 0.20 returns the tool's value; the SDK turns it into the model's text as below.
      const oaRun = async () => {
        const out: unknown = await oa.invoke(runContext, json);
        return typeof out === "string" ? out : JSON.stringify(out);
      };
      const lc = langchainTool((input: unknown) => body(input), { name: shape.key, description: shape.label, schema });
      const lcRun = async () => JSON.stringify(await lc.invoke(shape.input));
      const nw = async () => documented.formatOutcome(await documented.tools.invoke(call));
      const nwFull = async () => full.formatOutcome(await full.tools.invoke(call));
      const ok = (text: unknown) => typeof text === "string" && text.length > 5;
      await expectResult(ROW.documented(shape.label), nw, (t) => ok(t) && t.includes('"status":"ok"'));
      await expectResult(ROW.full(shape.label), nwFull, ok);
      await expectResult(ROW.aiSdk(shape.label), aiRun, ok);
      await expectResult(ROW.openai(shape.label), oaRun, ok);
      await expectResult(ROW.langchain(shape.label), lcRun, ok);
      cases.push(
        perCall(ROW.direct(shape.label), shape.calls, () => JSON.stringify(body(shape.input)), { floor: true }),
        perCall(ROW.documented(shape.label), shape.calls, nw),
        perCall(ROW.full(shape.label), shape.calls, nwFull),
        perCall(ROW.aiSdk(shape.label), shape.calls, aiRun),
        perCall(ROW.openai(shape.label), shape.slow, oaRun),
        perCall(ROW.langchain(shape.label), shape.slow, lcRun),
      );
    }
    return cases;
  },
  // The goals of issue 36 ("One pass per result, two commits per run" in DESIGN.md), every one read
  // from this run's rows. With --cpu they are judged on CPU time per call, with --processes=N on the
  // median of N processes.
  goals(results) {
    const ns = (name: string): number | undefined => results.get(name)?.nsPerCall;
    const goals: Goal[] = [];
    const sumDirect = ns(ROW.direct("{ sum }"));
    const sumDocumented = ns(ROW.documented("{ sum }"));
    if (sumDirect !== undefined && sumDocumented !== undefined)
      goals.push({
        goal: "{ sum } through the documented stack at most +1.0 µs over the floor",
        measured: `+${formatNs(sumDocumented - sumDirect)} (${formatNs(sumDocumented)} vs ${formatNs(sumDirect)})`,
        met: sumDocumented - sumDirect <= 1000,
      });
    const orderDirect = ns(ROW.direct("1 KB order"));
    const order = ns(ROW.documented("1 KB order"));
    const orderOpenai = ns(ROW.openai("1 KB order"));
    if (orderDirect !== undefined && order !== undefined)
      goals.push({
        goal: "1 KB order: the documented stack at most 1.5× its floor",
        measured: `${(order / orderDirect).toFixed(2)}× (${formatNs(order)} vs ${formatNs(orderDirect)})`,
        met: order <= 1.5 * orderDirect,
      });
    if (order !== undefined && orderOpenai !== undefined)
      goals.push({
        goal: "1 KB order: the documented stack at least 3× below the OpenAI Agents SDK's invoke",
        measured: `${(orderOpenai / order).toFixed(2)}× (${formatNs(orderOpenai)} vs ${formatNs(order)})`,
        met: orderOpenai >= 3 * order,
      });
    const fullGoals = [
      { shape: "1 KB order", limitNs: 20_000, limit: "20 µs" },
      { shape: "10 KB list", limitNs: 400_000, limit: "0.4 ms" },
      { shape: "100 KB list", limitNs: 600_000, limit: "0.6 ms" },
    ];
    for (const { shape, limitNs, limit } of fullGoals) {
      const full = ns(ROW.full(shape));
      if (full !== undefined)
        goals.push({
          goal: `${shape}: the full stack (truncation, redaction, diagnostics) at most ${limit}`,
          measured: formatNs(full),
          met: full <= limitNs,
        });
    }
    return goals;
  },
  notes: () => ({ shapes: SHAPES.map((s) => ({ shape: s.label, callsPerSample: s.calls })) }),
});
