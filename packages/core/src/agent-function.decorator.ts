import type { z } from "zod";
import type { AgentFunctionOptions, ToolInputSchema } from "./agent-function.options.js";
import { ToolDefinitionError } from "./errors.js";
import { pendingFunctions } from "./metadata.js";
import type { ToolContext } from "./tool-context.js";

const KNOWN_OPTIONS = new Set([
  "description", "input", "name", "output", "middleware", "idempotent", "readOnly", "requiresApproval",
  "compensate", "dependsOn", "timeoutMs", "maxResultTokens", "tags", "errors",
]);

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

function isZodObject(value: unknown): value is ToolInputSchema {
  return isZodSchema(value) && (value as { _zod: { def: { type?: unknown } } })._zod.def.type === "object";
}

/** The candidate nearest to `word`, when it is near enough to be a typo. @internal */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    const score = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance; small inputs only. @internal */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** Checks decorator options; throws naming the class and method. @internal */
export function validateAgentFunctionOptions(options: unknown, where: string): asserts options is AgentFunctionOptions {
  const fail = (problem: string): never => {
    throw new ToolDefinitionError(`@AgentFunction on ${where}: ${problem}`);
  };
  if (typeof options !== "object" || options === null) fail("options must be an object with at least `description` and `input`.");
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN_OPTIONS.has(key)) {
      const hint = closest(key, KNOWN_OPTIONS);
      fail(`unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ""}`);
    }
  }
  if (typeof o.description !== "string" || o.description.trim() === "") fail("`description` must be a non-empty string: the model reads it to choose the tool.");
  if (!isZodObject(o.input)) fail("`input` must be a zod object schema, e.g. `z.object({ orderId: z.string() })`.");
  if (o.name !== undefined && (typeof o.name !== "string" || o.name.trim() === "")) fail("`name` must be a non-empty string.");
  if (o.output !== undefined && !isZodSchema(o.output)) fail("`output` must be a zod schema.");
  if (o.middleware !== undefined && (!Array.isArray(o.middleware) || !o.middleware.every((m) => typeof m === "function"))) fail("`middleware` must be an array of middleware functions.");
  for (const flag of ["idempotent", "readOnly", "requiresApproval"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") fail(`\`${flag}\` must be a boolean.`);
  }
  for (const list of ["dependsOn", "tags"] as const) {
    const value = o[list];
    if (value !== undefined && (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== ""))) fail(`\`${list}\` must be an array of non-empty strings.`);
  }
  if (o.timeoutMs !== undefined && (typeof o.timeoutMs !== "number" || !Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0)) fail("`timeoutMs` must be a positive, finite number of milliseconds.");
  if (o.maxResultTokens !== undefined && (typeof o.maxResultTokens !== "number" || !Number.isInteger(o.maxResultTokens) || o.maxResultTokens <= 0)) fail("`maxResultTokens` must be a positive integer.");
  if (o.compensate !== undefined) {
    const c = o.compensate as { tool?: unknown; arguments?: unknown } | string;
    const ok = typeof c === "string" ? c !== "" : typeof c === "object" && c !== null && typeof c.tool === "string" && c.tool !== "" && (c.arguments === undefined || typeof c.arguments === "function");
    if (!ok) fail("`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`.");
  }
  if (o.errors !== undefined && (!Array.isArray(o.errors) || !o.errors.every((r) => typeof r === "object" && r !== null && "match" in r && typeof (r as { code?: unknown }).code === "string" && typeof (r as { message?: unknown }).message === "string"))) {
    fail("`errors` must be an array of `{ match, code, message }` rules.");
  }
}

/** The method shape `@AgentFunction` accepts for schema `S`. */
export type AgentFunctionMethod<S extends ToolInputSchema> = (args: z.output<S>, ctx: ToolContext) => unknown;

/**
 * Declares a method as a tool. The method's first parameter must accept `z.output` of `input`
 * (checked at compile time); its second is a {@link ToolContext}. The class needs
 * `@AgentFunctionGroup()`.
 *
 * @example
 * ```ts
 * @AgentFunctionGroup()
 * class OrderTools {
 *   @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string() }) })
 *   getOrderStatus({ orderId }: { orderId: string }) { return ToolResult.ok(lookup(orderId)); }
 * }
 * ```
 */
export function AgentFunction<S extends ToolInputSchema>(options: AgentFunctionOptions<S>) {
  return <T extends AgentFunctionMethod<S>>(target: object, propertyKey: string | symbol, descriptor: TypedPropertyDescriptor<T>): void => {
    const className = typeof target === "function" ? target.name : target.constructor.name;
    const where = `${className}.${String(propertyKey)}`;
    if (typeof target === "function") throw new ToolDefinitionError(`@AgentFunction on ${where}: static methods cannot be tools; make it an instance method.`);
    if (typeof propertyKey === "symbol") throw new ToolDefinitionError(`@AgentFunction on ${where}: symbol-named methods cannot be tools.`);
    if (typeof descriptor?.value !== "function") throw new ToolDefinitionError(`@AgentFunction on ${where}: only methods can be tools (not getters, setters or fields).`);
    validateAgentFunctionOptions(options, where);
    const ctor = target.constructor;
    let pending = pendingFunctions.get(ctor);
    if (!pending) pendingFunctions.set(ctor, (pending = new Map()));
    pending.set(propertyKey, options as unknown as AgentFunctionOptions);
  };
}
