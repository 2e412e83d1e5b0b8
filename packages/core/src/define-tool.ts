import type { z } from "zod";
import type {
  AgentFunctionDescriptor,
  AgentFunctionOptions,
  ToolClass,
  ToolContext,
  ToolInputSchema,
} from "./agent-function.options.js";
import { AGENT_FUNCTION_KEYS } from "./agent-function.decorator.js";
import { closest } from "./closest-name.js";
import { ToolDefinitionError, ToolRegistrationError } from "./errors.js";
import { jsonSchemaInput, jsonSchemaOutput } from "./json-schema-zod.js";
import type { JsonSchema } from "./tool-definition.js";
import { checkToolOptions, isZodSchema } from "./tool-options.check.js";

/**
 * What `defineTool` accepts besides the input and the body: every option of `@AgentFunction`
 * (`approval` is `requiresApproval`'s short name), plus `outputSchema` (a JSON Schema for the data),
 * `groups` (what `@AgentFunctionGroup` gives a class) and `server` (where a remote tool runs).
 *
 * @example
 * ```ts
 * const common: DefineToolCommonOptions = { name: "get_order", description: "Looks up an order.", readOnly: true };
 * ```
 */
export interface DefineToolCommonOptions extends Omit<AgentFunctionOptions, "input" | "name"> {
  /** The tool name the model uses. Required: there is no method to name it after. */
  readonly name: string;
  /** The call waits for a person's decision before it runs (`requiresApproval`). Default `false`. */
  readonly approval?: boolean;
  /** A JSON Schema the successful data must match (a mismatch is `OUTPUT_INVALID`); or `output` (zod). */
  readonly outputSchema?: JsonSchema;
  /** Group names, as `@AgentFunctionGroup("orders")` gives a class: agents pick tools by group. */
  readonly groups?: readonly string[];
  /** The server the tool runs on, shown beside its calls (`metadata.server`, the inspector). */
  readonly server?: string;
}

/**
 * `defineTool` with a zod `input`: `execute` receives `z.output` of it (checked at compile time).
 *
 * @example
 * ```ts
 * const options: DefineToolOptions<typeof OrderInput> = {
 *   name: "get_order", description: "Looks up an order.", input: OrderInput, execute: ({ orderId }) => find(orderId),
 * };
 * ```
 */
export interface DefineToolOptions<S extends ToolInputSchema> extends DefineToolCommonOptions {
  /** A zod v4 object schema for the arguments; its JSON Schema is what the model sees. */
  readonly input: S;
  /** The tool's body: the validated arguments and the call's context. */
  readonly execute: (args: z.output<S>, ctx: ToolContext) => unknown;
}

/**
 * `defineTool` with a JSON Schema `inputSchema`, validated by ajv before every call; `A` types the
 * arguments `execute` receives (default: a record).
 *
 * @example
 * ```ts
 * const options: DefineJsonSchemaToolOptions<{ id: number }> = {
 *   name: "get_order", description: "Looks up an order.",
 *   inputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
 *   execute: ({ id }) => find(id),
 * };
 * ```
 */
export interface DefineJsonSchemaToolOptions<A extends Record<string, unknown> = Record<string, unknown>>
  extends DefineToolCommonOptions {
  /** A JSON Schema (an object schema; draft 2020-12 unless its `$schema` says otherwise), published as it is. */
  readonly inputSchema: JsonSchema;
  /** The tool's body: the validated arguments and the call's context. */
  readonly execute: (args: A, ctx: ToolContext) => unknown;
}

const MARKER = Symbol.for("needlework.defined-tool");

/**
 * A tool made by `defineTool` (or a connected server's tool): hand it to the builder's
 * `.addTools(...)` or to `createToolInvoker({ tools })`.
 *
 * @example
 * ```ts
 * const tool: DefinedTool = defineTool({ name: "ping", description: "Answers pong.", input: z.object({}), execute: () => "pong" });
 * tool.name; // "ping"
 * ```
 */
export interface DefinedTool {
  /** The tool name the model uses. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** Everything the invoker needs to run it, as for a decorated method. */
  readonly descriptor: AgentFunctionDescriptor;
}

const KNOWN: ReadonlySet<string> = new Set([
  ...AGENT_FUNCTION_KEYS,
  "inputSchema",
  "execute",
  "outputSchema",
  "approval",
  "groups",
  "server",
]);

/** Options that describe the tool but are not `@AgentFunction` options. */
const OWN_TO_DEFINE = new Set(["inputSchema", "outputSchema", "execute", "approval", "groups", "server"]);

/**
 * True for a tool made by {@link defineTool} (from any installed copy of core).
 *
 * @example
 * ```ts
 * if (isDefinedTool(value)) builder.addTools(value);
 * ```
 */
export function isDefinedTool(value: unknown): value is DefinedTool {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

function isJsonSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isZodSchema(value);
}

/** Reads own properties only (a polluted prototype adds no option) and refuses unknown ones by name. */
function ownKnown(given: object, fail: (problem: string) => never): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) {
      const hint = closest(key, KNOWN);
      fail(`unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ""}`);
    }
    own[key] = (given as Record<string, unknown>)[key];
  }
  return own;
}

/**
 * Defines a tool without a class, under the same options as `@AgentFunction`: a zod `input` (the
 * body's parameter is checked against it at compile time) or a JSON Schema `inputSchema` (validated
 * by ajv before every call, never by hand). Its calls go through the same pipeline as a decorated
 * method's: validation, middleware, resilience, the envelope, the journal.
 *
 * @example
 * ```ts
 * const ping = defineTool({
 *   name: "ping",
 *   description: "Answers pong.",
 *   input: z.object({ times: z.number().int().describe("How many.") }),
 *   readOnly: true,
 *   execute: ({ times }) => "pong".repeat(times),
 * });
 * usingAgentFramework(container).addTools(ping).usingResilience().usingToolResultMiddleware().buildAgentFactory();
 * ```
 */
export function defineTool<S extends ToolInputSchema>(options: DefineToolOptions<S>): DefinedTool;
export function defineTool<A extends Record<string, unknown> = Record<string, unknown>>(
  options: DefineJsonSchemaToolOptions<A>,
): DefinedTool;
export function defineTool(given: DefineToolOptions<ToolInputSchema> | DefineJsonSchemaToolOptions): DefinedTool {
  const named = typeof given === "object" && given !== null && Object.hasOwn(given, "name") ? given.name : undefined;
  const where = typeof named === "string" && named !== "" ? `defineTool '${named}'` : "defineTool";
  const fail = (problem: string): never => {
    throw new ToolDefinitionError(`${where}: ${problem}`);
  };
  if (typeof given !== "object" || given === null)
    fail("options must be an object with `name`, `description`, `input` (or `inputSchema`) and `execute`.");
  const o = ownKnown(given, fail);
  if (typeof o.name !== "string" || o.name.trim() === "") fail("`name` must be a non-empty string.");
  if (typeof o.execute !== "function") fail("`execute` must be a function (args, ctx) => result.");
  if ((o.input === undefined) === (o.inputSchema === undefined))
    fail("give exactly one of `input` (a zod object schema) and `inputSchema` (a JSON Schema).");
  if (o.output !== undefined && o.outputSchema !== undefined) fail("give `output` or `outputSchema`, not both.");
  if (o.approval !== undefined && o.requiresApproval !== undefined && o.approval !== o.requiresApproval)
    fail("`approval` and `requiresApproval` are one option: give one of them.");
  if (o.approval !== undefined && typeof o.approval !== "boolean") fail("`approval` must be a boolean.");
  if (o.inputSchema !== undefined && !isJsonSchemaObject(o.inputSchema))
    fail("`inputSchema` must be a JSON Schema object (for a zod schema, use `input`).");
  if (o.outputSchema !== undefined && !isJsonSchemaObject(o.outputSchema))
    fail("`outputSchema` must be a JSON Schema object (for a zod schema, use `output`).");
  const groups = o.groups;
  if (
    groups !== undefined &&
    (!Array.isArray(groups) || !groups.every((g) => typeof g === "string" && g.trim() !== ""))
  )
    fail("`groups` must be an array of non-empty strings.");
  if (o.server !== undefined && (typeof o.server !== "string" || o.server === ""))
    fail("`server` must be a non-empty string.");
  checkToolOptions(o, fail);
  const name = o.name as string;
  let input: ToolInputSchema;
  if (o.input !== undefined) {
    if (!isZodSchema(o.input) || (o.input as { _zod: { def: { type?: unknown } } })._zod.def.type !== "object")
      fail("`input` must be a zod object schema, e.g. `z.object({ orderId: z.string() })`.");
    input = o.input as ToolInputSchema;
  } else input = jsonSchemaInput(o.inputSchema as JsonSchema, where);
  const output = o.outputSchema === undefined ? o.output : jsonSchemaOutput(o.outputSchema as JsonSchema, where);
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o))
    if (!OWN_TO_DEFINE.has(key) && value !== undefined) options[key] = value;
  options.input = input;
  if (output !== undefined) options.output = output;
  if (o.approval !== undefined) options.requiresApproval = o.approval;
  // A class of its own, named after the tool: the pipeline keys scopes and round policies by class.
  const target = { [name]: class {} }[name] as ToolClass;
  const descriptor: AgentFunctionDescriptor = {
    name,
    description: o.description as string,
    input,
    target,
    methodName: "execute",
    options: options as unknown as AgentFunctionOptions,
    group: groups === undefined ? {} : { groups: [...(groups as string[])] },
    execute: o.execute as (args: Record<string, unknown>, ctx: ToolContext) => unknown,
    ...(o.inputSchema === undefined ? {} : { inputSchema: structuredClone(o.inputSchema as JsonSchema) }),
    ...(o.outputSchema === undefined ? {} : { outputSchema: structuredClone(o.outputSchema as JsonSchema) }),
    ...(o.server === undefined ? {} : { server: o.server as string }),
  };
  const tool = { name, description: descriptor.description, descriptor };
  Object.defineProperty(tool, MARKER, { value: true });
  return Object.freeze(tool);
}

/**
 * The decorated classes' tools followed by the defined ones; two tools with one name are refused,
 * naming both (the builder reports it earlier, as NW012). @internal
 */
export function withDefinedTools(
  declared: AgentFunctionDescriptor[],
  defined: readonly DefinedTool[],
): AgentFunctionDescriptor[] {
  if (defined.length === 0) return declared;
  const byName = new Map(declared.map((tool) => [tool.name, tool]));
  for (const tool of defined) {
    if (!isDefinedTool(tool))
      throw new ToolRegistrationError("`tools` takes tools made by defineTool() or a connected server's `tools`.");
    const other = byName.get(tool.name);
    if (other !== undefined && other !== tool.descriptor)
      throw new ToolRegistrationError(
        `Two tools are named '${tool.name}': ${describeOrigin(other)} and ${describeOrigin(tool.descriptor)}. Rename one.`,
        { toolName: tool.name },
      );
    byName.set(tool.name, tool.descriptor);
  }
  return [...byName.values()];
}

/** Where a tool comes from, for an error message: its class and method, its server, or defineTool. @internal */
export function describeOrigin(tool: AgentFunctionDescriptor): string {
  if (tool.server !== undefined) return `the tool of server '${tool.server}'`;
  if (tool.execute !== undefined) return "defineTool()";
  return `${tool.target.name}.${tool.methodName}`;
}
