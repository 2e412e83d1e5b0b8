import type { ToolOutcome } from "@needlework/core";
import {
  ADD_INPUT,
  ADD_INPUT_JSON,
  AddTools,
  addSchema,
  BAD_INPUT,
  BAD_INPUT_JSON,
  PREBUILT_ERROR,
} from "./lib/add-tools.js";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";
import { expectRejection, expectResult, formatNs, perCall } from "./lib/per-call.js";
import { aiSdkValidateAndExecute, langchainTools, openaiRunContext, openaiTools } from "./lib/peers.js";
import { BREAKER_NEVER_OPENS, bareInvoker, documentedStack, FULL_STACK_LABEL, fullStack } from "./lib/stacks.js";

const FAST = 1000;
const SLOW = 100;

const THROWS = {
  floor: "throws: direct call in try/catch (floor)",
  documented: "throws: needlework documented stack → UNHANDLED_ERROR",
  full: `throws: needlework full stack (${FULL_STACK_LABEL})`,
  open: "throws: documented stack, circuit open (default breaker) → CIRCUIT_OPEN",
  aiSdk: "throws: AI SDK validate + execute → tool-error",
  openai: "throws: OpenAI Agents SDK tool.invoke → error text",
  langchain: "throws: LangChain.js tool().invoke → rejects",
  prebuiltFloor: "throws a prebuilt error: direct call in try/catch (floor)",
  prebuilt: "throws a prebuilt error: needlework documented stack",
} as const;

const INVALID = {
  floor: "invalid: zod safeParse + read issues (floor)",
  bare: "invalid: needlework bare invoker → INVALID_ARGUMENTS",
  documented: "invalid: needlework documented stack → INVALID_ARGUMENTS",
  documentedJson: "invalid: needlework documented stack, JSON text args",
  full: `invalid: needlework full stack (${FULL_STACK_LABEL})`,
  aiSdk: "invalid: AI SDK validate → InvalidToolInputError",
  openai: "invalid: OpenAI Agents SDK tool.invoke (JSON text) → error text",
  langchain: "invalid: LangChain.js tool().invoke → rejects",
} as const;

const isError = (code: string) => (o: ToolOutcome) => o.status === "error" && o.errorCode === code;

export default defineBenchmark({
  name: "tool-call-errors",
  description:
    "The error paths of the same add({a, b}) tool: a body that throws a TypeError (the exception becomes an error envelope), and arguments that fail validation (b is a string). Each group has its own floor: the throw caught by the caller, and zod's own rejection of the input.",
  options: { time: 1000, iterations: 10, warmupTime: 250 },
  async cases() {
    const tools = new AddTools();
    const bare = bareInvoker();
    // An always-failing tool would open the default breaker after 5 calls; this keeps it closed so
    // every call takes the exception-to-envelope path. The open circuit has its own row.
    const documented = documentedStack(BREAKER_NEVER_OPENS).tools;
    const full = fullStack(BREAKER_NEVER_OPENS).tools;
    const defaults = documentedStack().tools;
    const throwing = { name: "fail", arguments: ADD_INPUT };
    const throwingPrebuilt = { name: "failPrebuilt", arguments: ADD_INPUT };
    const invalid = { name: "add", arguments: BAD_INPUT };
    const invalidJson = { name: "add", arguments: BAD_INPUT_JSON };

    await expectResult(THROWS.documented, () => documented.invoke(throwing), isError("UNHANDLED_ERROR"));
    await expectResult(THROWS.full, () => full.invoke(throwing), isError("UNHANDLED_ERROR"));
    await expectResult(
      THROWS.prebuilt,
      () => documented.invoke(throwingPrebuilt),
      (o) => isError("UNHANDLED_ERROR")(o) && o.exception === PREBUILT_ERROR,
    );
    for (let i = 0; i < 5; i++) await defaults.invoke(throwing); // opens the default breaker
    await expectResult(THROWS.open, () => defaults.invoke(throwing), isError("CIRCUIT_OPEN"));
    await expectResult(
      THROWS.aiSdk,
      () => aiSdkValidateAndExecute("fail", ADD_INPUT),
      (r) => (r as { type: string }).type === "tool-error",
    );
    await expectResult(
      THROWS.openai,
      () => openaiTools.fail.invoke(openaiRunContext, ADD_INPUT_JSON),
      // 0.20's default error function answers a fixed text (0.14 included the error's message).
      (r) => typeof r === "string" && r.startsWith("An error occurred while running the tool"),
    );
    await expectRejection(THROWS.langchain, () => langchainTools.fail.invoke(ADD_INPUT));
    for (const [label, invoker] of [
      [INVALID.bare, bare],
      [INVALID.documented, documented],
      [INVALID.full, full],
    ] as const) {
      await expectResult(label, () => invoker.invoke(invalid), isError("INVALID_ARGUMENTS"));
    }
    await expectResult(INVALID.documentedJson, () => documented.invoke(invalidJson), isError("INVALID_ARGUMENTS"));
    await expectResult(
      INVALID.aiSdk,
      () => aiSdkValidateAndExecute("add", BAD_INPUT),
      (r) => (r as { invalid?: boolean }).invalid === true,
    );
    await expectResult(
      INVALID.openai,
      () => openaiTools.add.invoke(openaiRunContext, BAD_INPUT_JSON),
      (r) => typeof r === "string",
    );
    await expectRejection(INVALID.langchain, () => langchainTools.add.invoke(BAD_INPUT as { a: number; b: number }));

    return [
      perCall(
        THROWS.floor,
        FAST,
        async () => {
          try {
            return tools.fail();
          } catch (error) {
            return error;
          }
        },
        { floor: true },
      ),
      perCall(THROWS.documented, FAST, () => documented.invoke(throwing)),
      perCall(THROWS.full, FAST, () => full.invoke(throwing)),
      perCall(THROWS.open, FAST, () => defaults.invoke(throwing)),
      perCall(THROWS.aiSdk, FAST, () => aiSdkValidateAndExecute("fail", ADD_INPUT)),
      perCall(THROWS.openai, SLOW, () => openaiTools.fail.invoke(openaiRunContext, ADD_INPUT_JSON)),
      perCall(THROWS.langchain, SLOW, () => langchainTools.fail.invoke(ADD_INPUT).catch((error: unknown) => error)),
      perCall(
        THROWS.prebuiltFloor,
        FAST,
        async () => {
          try {
            return tools.failPrebuilt();
          } catch (error) {
            return error;
          }
        },
        { floor: true },
      ),
      perCall(THROWS.prebuilt, FAST, () => documented.invoke(throwingPrebuilt)),
      perCall(INVALID.floor, FAST, () => addSchema.safeParse(BAD_INPUT).error?.issues, { floor: true }),
      perCall(INVALID.bare, FAST, () => bare.invoke(invalid)),
      perCall(INVALID.documented, FAST, () => documented.invoke(invalid)),
      perCall(INVALID.documentedJson, FAST, () => documented.invoke(invalidJson)),
      perCall(INVALID.full, FAST, () => full.invoke(invalid)),
      perCall(INVALID.aiSdk, FAST, () => aiSdkValidateAndExecute("add", BAD_INPUT)),
      perCall(INVALID.openai, SLOW, () => openaiTools.add.invoke(openaiRunContext, BAD_INPUT_JSON)),
      perCall(INVALID.langchain, SLOW, () =>
        langchainTools.add.invoke(BAD_INPUT as { a: number; b: number }).catch((error: unknown) => error),
      ),
    ];
  },
  goals(results) {
    const ns = (name: string): number | undefined => results.get(name)?.nsPerCall;
    const goals: Goal[] = [];
    for (const [label, name, floor] of [
      ["a tool that throws", THROWS.documented, THROWS.floor],
      ["invalid arguments", INVALID.documented, INVALID.floor],
    ] as const) {
      const value = ns(name);
      const floorNs = ns(floor);
      if (value === undefined) continue;
      const overhead =
        floorNs === undefined
          ? ""
          : ` (the floor alone: ${formatNs(floorNs)}; needlework adds ${formatNs(value - floorNs)})`;
      goals.push({
        goal: `error path under 3 µs, documented stack, ${label}`,
        measured: `${formatNs(value)}${overhead}`,
        met: value < 3000,
      });
    }
    const throwing = ns(THROWS.documented);
    const throwFloor = ns(THROWS.floor);
    if (throwing !== undefined && throwFloor !== undefined) {
      goals.push({
        goal: "a throwing tool at most 2 µs above creating and throwing the error itself (issue 15)",
        measured: `${formatNs(throwing - throwFloor)} above`,
        met: throwing - throwFloor <= 2000,
      });
    }
    const prebuilt = ns(THROWS.prebuilt);
    const prebuiltFloor = ns(THROWS.prebuiltFloor);
    if (prebuilt !== undefined) {
      goals.push({
        goal: "error path under 3 µs, documented stack, a tool that throws an error made in advance (the pipeline's own cost)",
        measured: `${formatNs(prebuilt)}${prebuiltFloor === undefined ? "" : ` (the floor: ${formatNs(prebuiltFloor)})`}`,
        met: prebuilt < 3000,
      });
    }
    return goals;
  },
  notes: () => ({
    throwing: "TypeError('boom') thrown by the tool body",
    invalid: BAD_INPUT,
    callsPerSample: { fast: FAST, slow: SLOW },
  }),
});
