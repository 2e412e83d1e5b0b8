import { tool as langchainTool } from "@langchain/core/tools";
import { RunContext, tool as openaiTool } from "@openai/agents";
import { asSchema, InvalidToolInputError, type Tool, tool as aiTool, TypeValidationError } from "ai";
import { add, addSchema, fail } from "./add-tools.js";

// The same add tool and the same zod schema, declared the way each peer's docs show.

type AddInput = { a: number; b: number };

/** Vercel AI SDK (`ai` 7) tools. */
export const aiSdkTools: { add: Tool<AddInput, number>; fail: Tool<AddInput, number> } = {
  add: aiTool({ description: "Adds two numbers.", inputSchema: addSchema, execute: async (input) => add(input) }),
  fail: aiTool({
    description: "Always throws a TypeError.",
    inputSchema: addSchema,
    execute: async (): Promise<number> => fail(),
  }),
};

// AI SDK 7 passes the run's context to every execute (`context`, `experimental_context` in 6).
const executeOptions = { toolCallId: "call_1", messages: [], context: undefined };

/**
 * What `generateText` does per tool call, minus telemetry spans: `asSchema(tool.inputSchema)` (it does
 * this per call), validate, then execute; a validation failure becomes an `InvalidToolInputError`
 * wrapping a `TypeValidationError`, a throwing tool a `tool-error` part. Pass `schema` to use one
 * prepared ahead (cheaper than generateText).
 */
export async function aiSdkValidateAndExecute(
  name: keyof typeof aiSdkTools,
  input: unknown,
  schema?: ReturnType<typeof asSchema>,
): Promise<unknown> {
  const t = aiSdkTools[name] as Tool<AddInput, number>;
  const validator = schema ?? asSchema(t.inputSchema);
  const parsed = await validator.validate!(input);
  if (!parsed.success) {
    return {
      type: "tool-call",
      invalid: true,
      error: new InvalidToolInputError({
        toolName: name,
        toolInput: JSON.stringify(input),
        cause: TypeValidationError.wrap({ value: input, cause: parsed.error }),
      }),
    };
  }
  try {
    return { type: "tool-result", output: await t.execute!(parsed.value as AddInput, executeOptions) };
  } catch (error) {
    return { type: "tool-error", error };
  }
}

/** The add tool's schema as the AI SDK prepares it, made once. */
export const aiSdkAddSchema = asSchema(aiSdkTools.add.inputSchema);

/** OpenAI Agents SDK function tools; `invoke` takes the model's JSON text and returns the output or the error text. */
export const openaiTools = {
  add: openaiTool({
    name: "add",
    description: "Adds two numbers.",
    parameters: addSchema,
    execute: (input) => add(input),
  }),
  fail: openaiTool({
    name: "fail",
    description: "Always throws a TypeError.",
    parameters: addSchema,
    execute: (): number => fail(),
  }),
};

/** The run context `invoke` needs; one per run in the SDK, shared here. */
export const openaiRunContext = new RunContext();

/** LangChain.js tools; `invoke` validates with the schema and rejects on bad input or a throwing tool. */
export const langchainTools = {
  add: langchainTool((input: { a: number; b: number }) => add(input), {
    name: "add",
    description: "Adds two numbers.",
    schema: addSchema,
  }),
  fail: langchainTool((): number => fail(), {
    name: "fail",
    description: "Always throws a TypeError.",
    schema: addSchema,
  }),
};
