import { z } from "zod";
import type { AgentFunctionDescriptor } from "./agent-function.options.js";

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: unknown };

/** Behaviour flags a runtime (or a provider's annotations) may act on. */
export interface ToolFlags {
  readonly idempotent: boolean;
  readonly requiresApproval: boolean;
  /** The tool changes nothing (`@AgentFunction({ readOnly: true })`); MCP maps it to `readOnlyHint`. */
  readonly readOnly: boolean;
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
function closeStripObjects(ctx: { zodSchema: { _zod: { def: unknown } }; jsonSchema: { additionalProperties?: unknown } }): void {
  const def = ctx.zodSchema._zod.def as { type?: unknown; catchall?: unknown };
  if (def.type === "object" && def.catchall === undefined && ctx.jsonSchema.additionalProperties === undefined) ctx.jsonSchema.additionalProperties = false;
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", ...(io === "input" ? { override: closeStripObjects } : {}) }) as JsonSchema;
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
  const parameters = schemaOf(descriptor.input, "input");
  if (rejectsUnknownKeys(descriptor.input)) parameters.additionalProperties = false;
  const { options } = descriptor;
  const compensate = typeof options.compensate === "string" ? options.compensate : options.compensate?.tool;
  return {
    name: descriptor.name,
    description: descriptor.description,
    parameters,
    ...(options.output === undefined ? {} : { outputSchema: schemaOf(options.output, "output") }),
    flags: {
      idempotent: options.idempotent ?? false,
      requiresApproval: options.requiresApproval ?? false,
      readOnly: options.readOnly ?? false,
      ...(compensate === undefined ? {} : { compensate }),
      dependsOn: [...(options.dependsOn ?? [])],
    },
    tags: [...(options.tags ?? [])],
  };
}

const STRICT_UNSUPPORTED = new Set(["patternProperties", "propertyNames", "if", "then", "else", "not", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains"]);

/** A copy of `schema` fit for OpenAI strict mode, or `undefined` when the schema does not allow it. */
function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map(strictSchema);
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (STRICT_UNSUPPORTED.has(key)) return undefined;
    if (key === "properties" && typeof value === "object" && value !== null) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        const converted = strictSchema(sub);
        if (converted === undefined) return undefined;
        props[name] = converted;
      }
      out.properties = props;
    } else if (key === "default") {
      continue;
    } else {
      const converted = strictSchema(value);
      if (converted === undefined) return undefined;
      out[key] = converted;
    }
  }
  if (out.type === "object" || out.properties !== undefined) {
    const names = Object.keys((out.properties as object | undefined) ?? {});
    const required = Array.isArray(out.required) ? out.required : [];
    if (names.some((n) => !required.includes(n))) return undefined; // optional fields: strict mode needs nullable instead
    if (out.additionalProperties !== undefined && out.additionalProperties !== false) return undefined;
    out.additionalProperties = false;
    out.required = names;
  }
  return out;
}

/** Options of {@link toOpenAITools}. */
export interface OpenAIToolsOptions {
  /** `"auto"` (default): strict where the schema allows it; `true` or `false` forces. */
  readonly strict?: boolean | "auto";
}

/** An OpenAI chat-completions function tool. */
export interface OpenAIFunctionTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema; readonly strict?: boolean };
}

/**
 * Tool definitions in the OpenAI chat-completions format. Strict mode is turned on where the
 * schema allows it (every field required, no open objects, no unsupported keywords).
 *
 * @example
 * ```ts
 * await openai.chat.completions.create({ model, messages, tools: toOpenAITools(invoker.definitions) });
 * ```
 */
export function toOpenAITools(definitions: readonly ToolDefinition[], options: OpenAIToolsOptions = {}): OpenAIFunctionTool[] {
  const mode = options.strict ?? "auto";
  return definitions.map((d) => {
    const strict = mode === false ? undefined : (strictSchema(d.parameters) as JsonSchema | undefined);
    if (mode === true && strict === undefined) {
      throw new TypeError(`Tool '${d.name}' cannot use OpenAI strict mode: make every field required (use .nullable() instead of .optional()) and avoid open objects.`);
    }
    return { type: "function" as const, function: { name: d.name, description: d.description, parameters: strict ?? d.parameters, ...(mode === false ? {} : { strict: strict !== undefined }) } };
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
  readonly annotations: { readonly idempotentHint: boolean; readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean };
}

/** Tool definitions in the MCP `tools/list` format. */
export function toMcpTools(definitions: readonly ToolDefinition[]): McpTool[] {
  return definitions.map((d) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.parameters,
    annotations: {
      idempotentHint: d.flags.idempotent,
      ...(d.flags.readOnly ? { readOnlyHint: true } : {}),
      ...(d.flags.requiresApproval ? { destructiveHint: true } : {}),
    },
  }));
}
