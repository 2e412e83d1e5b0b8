import { type ToolOutcome } from "@needlework/core";
import { ADD_INPUT, ADD_INPUT_JSON, AddTools, addSchema } from "./lib/add-tools.js";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";
import { expectResult, formatNs, perCall } from "./lib/per-call.js";
import { aiSdkAddSchema, aiSdkValidateAndExecute, langchainTools, openaiRunContext, openaiTools } from "./lib/peers.js";
import { bareInvoker, documentedStack, FULL_STACK_LABEL, fullStack } from "./lib/stacks.js";

const FAST = 1000; // calls per sample for sub-10 µs cases
const SLOW = 100; // calls per sample for the slow peers

const CASE = {
  direct: "direct call (floor)",
  zod: "zod parse + call",
  bare: "needlework bare invoker",
  documented: "needlework documented stack",
  documentedJson: "needlework documented stack, JSON text args",
  full: `needlework full stack (${FULL_STACK_LABEL})`,
  aiSdk: "AI SDK validate + execute (asSchema per call, as generateText)",
  aiSdkPrepared: "AI SDK validate + execute (schema prepared once)",
  openai: "OpenAI Agents SDK tool.invoke (JSON text)",
  langchain: "LangChain.js tool().invoke",
} as const;

const okOutcome = (o: ToolOutcome): boolean => o.status === "ok" && o.data === 5;

export default defineBenchmark({
  name: "tool-call",
  description:
    "Per-call cost of one successful call of a trivial add({a, b}) tool, same input, same process: the direct call is the floor; needlework's invoker alone, with the documented stack and with the full stack; the peers' own validate-and-execute paths.",
  options: { time: 1000, iterations: 10, warmupTime: 250 },
  async cases() {
    const tools = new AddTools();
    const bare = bareInvoker();
    const documented = documentedStack().tools;
    const full = fullStack().tools;
    const call = { name: "add", arguments: ADD_INPUT };
    const jsonCall = { name: "add", arguments: ADD_INPUT_JSON };

    await expectResult(CASE.bare, () => bare.invoke(call), okOutcome);
    await expectResult(CASE.documented, () => documented.invoke(call), okOutcome);
    await expectResult(CASE.documentedJson, () => documented.invoke(jsonCall), okOutcome);
    await expectResult(CASE.full, () => full.invoke(call), okOutcome);
    await expectResult(
      CASE.aiSdk,
      () => aiSdkValidateAndExecute("add", ADD_INPUT),
      (r) => (r as { output?: unknown }).output === 5,
    );
    await expectResult(
      CASE.openai,
      () => openaiTools.add.invoke(openaiRunContext, ADD_INPUT_JSON),
      (r) => (r as unknown) === 5,
    );
    await expectResult(
      CASE.langchain,
      () => langchainTools.add.invoke(ADD_INPUT),
      (r) => r === 5,
    );

    return [
      perCall(CASE.direct, FAST, () => tools.add(ADD_INPUT), { floor: true }),
      perCall(CASE.zod, FAST, () => tools.add(addSchema.parse(ADD_INPUT))),
      perCall(CASE.bare, FAST, () => bare.invoke(call)),
      perCall(CASE.documented, FAST, () => documented.invoke(call)),
      perCall(CASE.documentedJson, FAST, () => documented.invoke(jsonCall)),
      perCall(CASE.full, FAST, () => full.invoke(call)),
      perCall(CASE.aiSdk, FAST, () => aiSdkValidateAndExecute("add", ADD_INPUT)),
      perCall(CASE.aiSdkPrepared, FAST, () => aiSdkValidateAndExecute("add", ADD_INPUT, aiSdkAddSchema)),
      perCall(CASE.openai, SLOW, () => openaiTools.add.invoke(openaiRunContext, ADD_INPUT_JSON)),
      perCall(CASE.langchain, SLOW, () => langchainTools.add.invoke(ADD_INPUT)),
    ];
  },
  goals(results) {
    const ns = (name: string): number | undefined => results.get(name)?.nsPerCall;
    const documented = ns(CASE.documented);
    const goals: Goal[] = [];
    if (documented !== undefined) {
      goals.push({
        goal: "documented stack under 1.5 µs per successful call",
        measured: formatNs(documented),
        met: documented < 1500,
      });
      goals.push({
        goal: "documented stack at most 1.0 µs per successful call (issue 15)",
        measured: formatNs(documented),
        met: documented <= 1000,
      });
      const langchain = ns(CASE.langchain);
      if (langchain !== undefined)
        goals.push({
          goal: "documented stack at least 20× below LangChain.js",
          measured: `${(langchain / documented).toFixed(1)}×`,
          met: langchain / documented >= 20,
        });
      const openai = ns(CASE.openai);
      if (openai !== undefined)
        goals.push({
          goal: "documented stack at least 4× below the OpenAI Agents SDK",
          measured: `${(openai / documented).toFixed(1)}×`,
          met: openai / documented >= 4,
        });
      if (openai !== undefined)
        goals.push({
          goal: "documented stack at least 2.5× below the OpenAI Agents SDK (issue 15)",
          measured: `${(openai / documented).toFixed(1)}×`,
          met: openai / documented >= 2.5,
        });
    }
    const bare = ns(CASE.bare);
    // The stricter comparison: the AI SDK with its schema prepared once (generateText re-prepares it per call).
    const aiSdk = ns(CASE.aiSdkPrepared);
    if (bare !== undefined && aiSdk !== undefined) {
      goals.push({
        goal: "bare invoker within 2× the AI SDK's validate-and-execute (schema prepared once)",
        measured: `${(bare / aiSdk).toFixed(2)}× (${formatNs(bare)} vs ${formatNs(aiSdk)})`,
        met: bare <= 2 * aiSdk,
      });
    }
    return goals;
  },
  notes: () => ({ input: ADD_INPUT, callsPerSample: { fast: FAST, slow: SLOW } }),
});
