import {
  type AgentFunctionDescriptor,
  checkApprovalArguments,
  formatToolOutcome,
  type JsonValue,
  toJsonSafe,
  toolOutcomeEnvelope,
  type ToolInvoker,
  type ToolOutcome,
} from "@needlework/core";
import type { dynamicTool, JSONSchema7, JSONValue } from "ai";
import { invokeForModel, type UnhandledToolErrorHandler } from "@needlework/core";
import { ownOptions } from "@needlework/core/kit";
import { approvedInMessages, gateOf, PERSON_APPROVED } from "./policy-approval.js";
import { selectDefinitions } from "./select-definitions.js";
import type { AiSdkToolCallInfo } from "./tool-call-info.js";

export type { AiSdkToolCallInfo } from "./tool-call-info.js";

/**
 * One AI SDK tool made from a needlework tool (a dynamic tool: its input type is known at run time
 * only). A tool whose needlework definition says `requiresApproval` carries `needsApproval: true`;
 * with an injection policy, the others carry a `needsApproval` function that asks the policy.
 */
export type AiSdkTool = ReturnType<typeof dynamicTool>;

/** What the AI SDK passes to `execute`: AI SDK 6 names the context `experimental_context`, 7 `context`. */
interface ExecuteOptions {
  readonly toolCallId: string;
  readonly messages?: readonly unknown[];
  readonly abortSignal?: AbortSignal;
  readonly experimental_context?: unknown;
  readonly context?: unknown;
}

/**
 * The AI SDK's schema marker (`Symbol.for("vercel.ai.schema")`, the same in AI SDK 5, 6 and 7). The
 * tool set is plain data built without importing `ai` at run time, so one build serves every
 * supported major and never loads a second copy of the SDK.
 */
const schemaMarker = Symbol.for("vercel.ai.schema");

function inputSchemaOf(parameters: unknown, approvalTool: AgentFunctionDescriptor | undefined): unknown {
  // No `validate` for most tools: the AI SDK passes any parsed JSON through, and needlework's own
  // validation turns a mismatch into an INVALID_ARGUMENTS envelope instead of an AI SDK tool error.
  // A `requiresApproval` tool's input is checked by the SDK before it asks anyone: an invalid call,
  // or one too long to show a person whole, is an invalid tool call (the model reads the needlework
  // envelope in the SDK's error text), never a `tool-approval-request`.
  const validate =
    approvalTool === undefined
      ? undefined
      : (value: unknown) => {
          const checked = checkApprovalArguments(approvalTool, value, { callId: "" });
          return checked.ok
            ? { success: true, value }
            : { success: false, error: new Error(formatToolOutcome(checked.outcome, { omitMetadata: true })) };
        };
  return { [schemaMarker]: true, jsonSchema: parameters as JSONSchema7, validate };
}

/** The tool set {@link toAiSdkTools} returns: pass it as `tools` to `generateText` or `streamText`. */
export type AiSdkToolSet = Record<string, AiSdkTool>;

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /** Offer only these tools (by needlework name). Default: every tool of the invoker. */
  readonly tools?: readonly string[];
  /**
   * The needlework run id of each call: a fixed id (one tool set per conversation) or a function
   * of the call (one tool set shared by many runs; answering `undefined` means the default).
   * Default: one run id per tool set, so what one call read (untrusted content) gates the calls
   * after it through the same tool set. Make one tool set per conversation, or pass a run id per
   * conversation, so conversations are judged apart.
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

type ModelOutput = { type: "text"; value: string } | { type: "json" | "error-json"; value: JSONValue };

/**
 * What the model reads: needlework's rendered outcome. Failures go as `error-json`, so providers
 * with an error flag on tool results (Anthropic's `is_error`) set it; a rendered string goes as text.
 */
function toModelOutput({ output }: { output: unknown }): ModelOutput {
  if (typeof output === "string") return { type: "text", value: output };
  return { type: isFailedEnvelope(output) ? "error-json" : "json", value: (output ?? null) as JSONValue };
}

/**
 * Exposes a needlework {@link ToolInvoker} as a Vercel AI SDK tool set (AI SDK 6 and 7). Each tool's `execute`
 * runs the whole needlework pipeline (validation, middleware, resilience, result shaping) and
 * returns the outcome envelope, so the model reads `status`/`error_code`/`suggestion` on failures
 * instead of an exception. Arguments are validated by needlework only: arguments that do not match
 * the schema come back as an `INVALID_ARGUMENTS` envelope the model can act on. A `requiresApproval`
 * tool carries `needsApproval: true`, so the SDK stops for approval before running it; with AI SDK 7
 * also pass `toolApproval: toAiSdkToolApproval(invoker)`. With an injection policy on the invoker
 * (`usingInjectionPolicy`), every tool's `needsApproval` asks the policy for the call's run (one
 * per tool set unless `runId` says otherwise: give each conversation its own), and a call it would put to a person runs only once the conversation
 * holds a person's approval of that very call.
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
  // Own properties only: a polluted Object.prototype supplies no `runId`, `format` or `onError`.
  const own = ownOptions(options, ["tools", "runId", "format", "omitMetadata", "onError"]);
  const { runId, format, onError } = own;
  const omitMetadata = own.omitMetadata ?? false;
  const render = (outcome: ToolOutcome): JsonValue =>
    format ? toJsonSafe(format(outcome)) : toJsonSafe(toolOutcomeEnvelope(outcome, { omitMetadata }));
  const tools: AiSdkToolSet = {};
  // One run per tool set unless `runId` names one (as the MCP adapter has one per connection): a
  // fresh run per call would let each call start clean, forgetting what the one before it read.
  const ownRun = `ai_sdk_tools_${globalThis.crypto.randomUUID()}`;
  const runIdOf = (call: AiSdkToolCallInfo): string => {
    const given: unknown = typeof runId === "function" ? runId(call) : runId;
    if (given === undefined) return ownRun;
    if (typeof given !== "string" || given === "")
      throw new TypeError("toAiSdkTools: the runId option must give a non-empty string or undefined.");
    return given;
  };
  const gate = gateOf(invoker, runIdOf);
  for (const definition of selectDefinitions("toAiSdkTools", invoker, own.tools)) {
    const name = definition.name;
    const approvalTool = definition.flags.requiresApproval ? invoker.get(name) : undefined;
    // With an injection policy, a call it would put to a person asks through the SDK's approval step.
    const needsApproval = definition.flags.requiresApproval
      ? { needsApproval: true }
      : gate === undefined
        ? {}
        : {
            needsApproval: (input: unknown, call: ExecuteOptions) =>
              gate.verdict(name, input, call.toolCallId, call.experimental_context ?? call.context)?.action ===
              "approve",
          };
    const tool = {
      type: "dynamic",
      description: definition.description,
      inputSchema: inputSchemaOf(definition.parameters, approvalTool),
      ...needsApproval,
      execute: async (input: unknown, call: ExecuteOptions) => {
        if (approvalTool !== undefined) {
          // Checked again where it runs: arguments nobody could have been shown never run.
          const checked = checkApprovalArguments(approvalTool, input, { callId: call.toolCallId });
          if (!checked.ok) return render(checked.outcome);
        }
        const context = call.experimental_context ?? call.context;
        const id = runIdOf({ toolName: name, toolCallId: call.toolCallId, context });
        // A call the policy puts to a person runs only when the conversation holds a person's
        // approval of this very call (the SDK's tool-approval-response); otherwise the policy refuses it.
        const approved =
          gate?.verdict(name, input, call.toolCallId, context)?.action === "approve" &&
          approvedInMessages(call.messages, call.toolCallId);
        const outcome = await invokeForModel(
          invoker,
          { name, arguments: input, callId: call.toolCallId },
          {
            ...(call.abortSignal ? { signal: call.abortSignal } : {}),
            runId: id,
            ...(approved ? { items: PERSON_APPROVED } : {}),
          },
          onError,
        );
        return render(outcome);
      },
      toModelOutput,
    };
    // An own property whatever the name (an assignment to `__proto__` would set a prototype).
    Object.defineProperty(tools, name, { value: tool, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}
