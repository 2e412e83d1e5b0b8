import { type JsonValue, toJsonSafe, toolOutcomeEnvelope, type ToolInvoker, type ToolOutcome } from "@needlework/core";
import { dynamicTool, jsonSchema, type JSONSchema7, type JSONValue, type ToolCallOptions } from "ai";
import { invokeForModel, type UnhandledToolErrorHandler } from "@needlework/core";

/** One AI SDK tool made from a needlework tool (a dynamic tool: its input type is known at run time only). */
export type AiSdkTool = ReturnType<typeof dynamicTool>;

/** The tool set {@link toAiSdkTools} returns: pass it as `tools` to `generateText` or `streamText`. */
export type AiSdkToolSet = Record<string, AiSdkTool>;

/** What a `runId` function learns about the call it names the run for. */
export interface AiSdkToolCallInfo {
  /** The tool the model called. */
  readonly toolName: string;
  /** The AI SDK's tool call id (also the needlework `callId`). */
  readonly toolCallId: string;
  /** The `experimental_context` passed to `generateText`/`streamText`, if any. */
  readonly context: unknown;
}

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /** Offer only these tools (by needlework name). Default: every tool of the invoker. */
  readonly tools?: readonly string[];
  /**
   * The needlework run id of each call: a fixed id (one tool set per conversation) or a function
   * of the call (one tool set shared by many runs). Default: a fresh run id per call.
   */
  readonly runId?: string | ((call: AiSdkToolCallInfo) => string | undefined);
  /**
   * Renders the outcome the model reads. Default: the envelope object of `toolOutcomeEnvelope`
   * (`{ status, error_code, retriable, message, suggestion, data, metadata }`), made JSON-safe.
   * Pass a factory's `formatOutcome` to send the same text an agent built by the factory sends.
   */
  readonly format?: (outcome: ToolOutcome) => JsonValue;
  /** Leave `metadata` out of the default envelope (smaller prompts). Default `false`. */
  readonly omitMetadata?: boolean;
  /**
   * Called with an exception that escaped the pipeline (an invoker without the tool-result
   * middleware). The model reads an `UNHANDLED_ERROR` envelope naming only the exception's type.
   */
  readonly onError?: UnhandledToolErrorHandler;
}

function isFailedEnvelope(output: unknown): boolean {
  if (typeof output !== "object" || output === null || Array.isArray(output)) return false;
  const status = (output as { status?: unknown }).status;
  return typeof status === "string" && status !== "ok";
}

/**
 * Sends failures as `error-json`, so providers with an error flag on tool results (Anthropic's
 * `is_error`) set it; everything else goes as the AI SDK would send it anyway.
 */
function toModelOutput(output: unknown): { type: "text"; value: string } | { type: "json" | "error-json"; value: JSONValue } {
  if (typeof output === "string") return { type: "text", value: output };
  return { type: isFailedEnvelope(output) ? "error-json" : "json", value: (output ?? null) as JSONValue };
}

function selectDefinitions(invoker: ToolInvoker, names: readonly string[] | undefined) {
  if (names === undefined) return invoker.definitions;
  const known = new Set(invoker.definitions.map((d) => d.name));
  const missing = names.filter((n) => !known.has(n));
  if (missing.length > 0) {
    throw new TypeError(
      `toAiSdkTools: no tool named ${missing.map((n) => `'${n}'`).join(", ")}. Pick from: ${[...known].join(", ") || "(none)"}.`,
    );
  }
  const wanted = new Set(names);
  return invoker.definitions.filter((d) => wanted.has(d.name));
}

/**
 * Exposes a needlework {@link ToolInvoker} as a Vercel AI SDK (v5) tool set. Each tool's `execute`
 * runs the whole needlework pipeline (validation, middleware, resilience, result shaping) and
 * returns the outcome envelope, so the model reads `status`/`error_code`/`suggestion` on failures
 * instead of an exception. Arguments are validated by needlework only: arguments that do not match
 * the schema come back as an `INVALID_ARGUMENTS` envelope the model can act on.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * const result = await generateText({
 *   model,
 *   tools: toAiSdkTools(factory.tools, { format: factory.formatOutcome }),
 *   stopWhen: stepCountIs(5),
 *   prompt: "Where is order ORD-1?",
 * });
 * ```
 */
export function toAiSdkTools(invoker: ToolInvoker, options: AiSdkToolsOptions = {}): AiSdkToolSet {
  const { runId, format, omitMetadata = false, onError } = options;
  const render = (outcome: ToolOutcome): JsonValue =>
    format ? toJsonSafe(format(outcome)) : toJsonSafe(toolOutcomeEnvelope(outcome, { omitMetadata }));
  const tools: AiSdkToolSet = {};
  for (const definition of selectDefinitions(invoker, options.tools)) {
    const name = definition.name;
    tools[name] = dynamicTool({
      description: definition.description,
      // No `validate`: the AI SDK passes any parsed JSON through, and needlework's own validation
      // turns a mismatch into an INVALID_ARGUMENTS envelope instead of an AI SDK tool error.
      inputSchema: jsonSchema(definition.parameters as JSONSchema7),
      execute: async (input: unknown, call: ToolCallOptions) => {
        const id = typeof runId === "function" ? runId({ toolName: name, toolCallId: call.toolCallId, context: call.experimental_context }) : runId;
        const outcome = await invokeForModel(
          invoker,
          { name, arguments: input, callId: call.toolCallId },
          { ...(call.abortSignal ? { signal: call.abortSignal } : {}), ...(id === undefined ? {} : { runId: id }) },
          onError,
        );
        return render(outcome);
      },
      toModelOutput,
    });
  }
  return tools;
}
