import { z } from "zod";
import type { AgentFunctionDescriptor } from "./agent-function.options.js";
import { toOpenAIStrictSchema } from "./openai-strict-schema.js";
import { toolEffects } from "./tool-provenance.js";

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: unknown };

/** Behaviour flags a runtime (or a provider's annotations) may act on. */
export interface ToolFlags {
  readonly idempotent: boolean;
  readonly requiresApproval: boolean;
  /** The tool changes nothing (`@AgentFunction({ readOnly: true })`); MCP maps it to `readOnlyHint`. */
  readonly readOnly: boolean;
  /** Where its results come from (`@AgentFunction({ reads })`); default `"trusted"`. */
  readonly reads?: "trusted" | "untrusted";
  /** What it changes (`@AgentFunction({ effects })`); undeclared is `"external"`, `readOnly` is `"none"`. */
  readonly effects?: "none" | "internal" | "external";
  /** It reads private data (`@AgentFunction({ sensitive })`). Set by `toolDefinitionOf`; optional for hand-made flags. */
  readonly sensitive?: boolean;
  readonly compensate?: string;
  readonly dependsOn: readonly string[];
}

/** A provider-neutral tool definition: what the model is told about a tool. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12) of the arguments, from the zod `input` schema. */
  readonly parameters: JsonSchema;
  /** JSON Schema of the successful data, when the tool declares `output`. */
  readonly outputSchema?: JsonSchema;
  readonly flags: ToolFlags;
  readonly tags: readonly string[];
}

/** Whether the tool's top-level object rejects unknown keys (the zod default "strip" mode does here). @internal */
export function rejectsUnknownKeys(schema: z.ZodObject): boolean {
  return schema._zod.def.catchall === undefined;
}

/**
 * Objects in zod's default "strip" mode reject unknown fields when a tool is invoked (see
 * tool-arguments.ts), so their input schema says so too, at every depth.
 */
function closeStripObjects(ctx: {
  zodSchema: { _zod: { def: unknown } };
  jsonSchema: { additionalProperties?: unknown };
}): void {
  const def = ctx.zodSchema._zod.def as { type?: unknown; catchall?: unknown };
  if (def.type === "object" && def.catchall === undefined && ctx.jsonSchema.additionalProperties === undefined)
    ctx.jsonSchema.additionalProperties = false;
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    ...(io === "input" ? { override: closeStripObjects } : {}),
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * The provider-neutral definition of a declared tool.
 *
 * @example
 * ```ts
 * const def = toolDefinitionOf(descriptor); // { name, description, parameters, flags, tags }
 * ```
 */
export function toolDefinitionOf(descriptor: AgentFunctionDescriptor): ToolDefinition {
  // A tool defined by a JSON Schema publishes it as given (a copy: providers' adapters may rewrite it).
  let parameters: JsonSchema;
  if (descriptor.inputSchema !== undefined) {
    const { $schema: _, ...given } = structuredClone(descriptor.inputSchema) as JsonSchema;
    parameters = given;
  } else {
    parameters = schemaOf(descriptor.input, "input");
    if (rejectsUnknownKeys(descriptor.input)) parameters.additionalProperties = false;
  }
  const { options } = descriptor;
  const compensate = typeof options.compensate === "string" ? options.compensate : options.compensate?.tool;
  const outputSchema =
    descriptor.outputSchema !== undefined
      ? (structuredClone(descriptor.outputSchema) as JsonSchema)
      : options.output === undefined
        ? undefined
        : schemaOf(options.output, "output");
  return {
    name: descriptor.name,
    description: descriptor.description,
    parameters,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    flags: {
      idempotent: options.idempotent ?? false,
      requiresApproval: options.requiresApproval ?? false,
      readOnly: options.readOnly ?? false,
      reads: options.reads ?? "trusted",
      effects: toolEffects(options),
      sensitive: options.sensitive ?? false,
      ...(compensate === undefined ? {} : { compensate }),
      dependsOn: [...(options.dependsOn ?? [])],
    },
    tags: [...(options.tags ?? [])],
  };
}

/** Options of {@link toOpenAITools}. */
export interface OpenAIToolsOptions {
  /** `"auto"` (default): strict where the schema allows it; `true` or `false` forces. */
  readonly strict?: boolean | "auto";
}

/** An OpenAI chat-completions function tool. */
export interface OpenAIFunctionTool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
    readonly strict?: boolean;
  };
}

/**
 * Why a tool cannot use OpenAI strict mode (empty when it can): optional fields, open objects,
 * tuples, untyped fields (`z.date()`), `minLength`/`maxLength` and other keywords outside
 * OpenAI's strict subset. {@link toOpenAITools} sends such a tool non-strict.
 *
 * @example
 * ```ts
 * for (const d of invoker.definitions) {
 *   const reasons = strictFallbackReasons(d);
 *   if (reasons.length > 0) console.warn(`${d.name} is not strict: ${reasons.join("; ")}`);
 * }
 * ```
 */
export function strictFallbackReasons(definition: ToolDefinition): readonly string[] {
  return toOpenAIStrictSchema(definition.parameters).reasons ?? [];
}

/**
 * Tool definitions in the OpenAI chat-completions format. Strict mode is turned on only where the
 * schema fits OpenAI's strict subset (`oneOf` is rewritten to `anyOf`); the rest go non-strict,
 * and {@link strictFallbackReasons} says why.
 *
 * @example
 * ```ts
 * await openai.chat.completions.create({ model, messages, tools: toOpenAITools(invoker.definitions) });
 * ```
 */
export function toOpenAITools(
  definitions: readonly ToolDefinition[],
  options: OpenAIToolsOptions = {},
): OpenAIFunctionTool[] {
  const mode = options.strict ?? "auto";
  return definitions.map((d) => {
    const result = mode === false ? undefined : toOpenAIStrictSchema(d.parameters);
    if (mode === true && result?.reasons) {
      throw new TypeError(`Tool '${d.name}' cannot use OpenAI strict mode: ${result.reasons.join("; ")}.`);
    }
    const strict = result?.strict;
    return {
      type: "function" as const,
      function: {
        name: d.name,
        description: d.description,
        parameters: strict ?? d.parameters,
        ...(mode === false ? {} : { strict: strict !== undefined }),
      },
    };
  });
}

/** An Anthropic messages API tool. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/** Tool definitions in the Anthropic messages format. */
export function toAnthropicTools(definitions: readonly ToolDefinition[]): AnthropicTool[] {
  return definitions.map((d) => ({ name: d.name, description: d.description, input_schema: d.parameters }));
}

/** An MCP tool as listed by `tools/list`. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Present for tools whose `output` schema is an object (MCP `structuredContent` is an object). */
  readonly outputSchema?: JsonSchema;
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
  };
}

/**
 * Tool definitions in the MCP `tools/list` format, with honest annotations: the spec's default for
 * `destructiveHint` is true, so it is always sent, false only for read-only or idempotent tools.
 *
 * @example
 * ```ts
 * const tools = toMcpTools(factory.tools.definitions); // [{ name, description, inputSchema, annotations }]
 * ```
 */
export function toMcpTools(definitions: readonly ToolDefinition[]): McpTool[] {
  return definitions.map((d) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.parameters,
    ...((d.outputSchema as { type?: unknown } | undefined)?.type === "object" ? { outputSchema: d.outputSchema! } : {}),
    annotations: {
      readOnlyHint: d.flags.readOnly,
      destructiveHint: !(d.flags.readOnly || d.flags.idempotent),
      idempotentHint: d.flags.idempotent,
    },
  }));
}
