import type { AgentFunctionOptions, ToolContext, ToolInputSchema } from "./agent-function.options.js";
import { ownOptions } from "./own-options.js";
import type { z } from "zod";
import { ToolDefinitionError } from "./errors.js";
import { closest } from "./closest-name.js";
import { isStandardMethodCall } from "./decorator-context.js";
import { recordFunction, recordStandardFunction } from "./metadata.js";
import { checkToolOptions, isZodSchema } from "./tool-options.check.js";

/** Every key of {@link AgentFunctionOptions}: the options a decorator accepts, read as own properties. @internal */
export const AGENT_FUNCTION_KEYS = [
  "description",
  "input",
  "name",
  "output",
  "middleware",
  "idempotent",
  "readOnly",
  "reads",
  "effects",
  "sensitive",
  "requiresApproval",
  "compensate",
  "dependsOn",
  "timeoutMs",
  "maxResultTokens",
  "tags",
  "errors",
  "failures",
] as const satisfies readonly (keyof AgentFunctionOptions)[];

const KNOWN_OPTIONS: ReadonlySet<string> = new Set(AGENT_FUNCTION_KEYS);

function isZodObject(value: unknown): value is ToolInputSchema {
  return isZodSchema(value) && (value as { _zod: { def: { type?: unknown } } })._zod.def.type === "object";
}

/** Checks decorator options; throws naming the class and method. @internal */
export function validateAgentFunctionOptions(options: unknown, where: string): asserts options is AgentFunctionOptions {
  const fail = (problem: string): never => {
    throw new ToolDefinitionError(`@AgentFunction on ${where}: ${problem}`);
  };
  if (typeof options !== "object" || options === null)
    fail("options must be an object with at least `description` and `input`.");
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN_OPTIONS.has(key)) {
      const hint = closest(key, KNOWN_OPTIONS);
      fail(`unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ""}`);
    }
  }
  checkToolOptions(o, fail);
  if (!isZodObject(o.input)) fail("`input` must be a zod object schema, e.g. `z.object({ orderId: z.string() })`.");
}

/** The method shape `@AgentFunction` accepts for schema `S`. */
export type AgentFunctionMethod<S extends ToolInputSchema> = (args: z.output<S>, ctx: ToolContext) => unknown;

/**
 * What `@AgentFunction(...)` returns: a method decorator for both calling conventions, TypeScript's
 * `experimentalDecorators` (`(prototype, key, descriptor)`) and standard TC39 decorators
 * (`(method, context)`, what tsx, esbuild, Vite and Bun compile). Either way the method's first
 * parameter must accept `z.output` of `input`.
 *
 * @example
 * ```ts
 * const decorate: AgentFunctionDecorator<typeof OrderInput> = AgentFunction({ description: "Looks up an order.", input: OrderInput });
 * ```
 */
export interface AgentFunctionDecorator<S extends ToolInputSchema> {
  <T extends AgentFunctionMethod<S>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void;
  <T extends AgentFunctionMethod<S>>(method: T, context: ClassMethodDecoratorContext<unknown, T>): void;
}

/** experimentalDecorators: `(prototype, key, descriptor)`. */
function decorateLegacy(
  options: unknown,
  target: object,
  propertyKey: string | symbol,
  descriptor: PropertyDescriptor | undefined,
): void {
  const className = typeof target === "function" ? target.name : target.constructor.name;
  const where = `${className}.${String(propertyKey)}`;
  if (typeof target === "function")
    throw new ToolDefinitionError(
      `@AgentFunction on ${where}: static methods cannot be tools; make it an instance method.`,
    );
  if (typeof propertyKey === "symbol")
    throw new ToolDefinitionError(`@AgentFunction on ${where}: symbol-named methods cannot be tools.`);
  if (typeof descriptor?.value !== "function")
    throw new ToolDefinitionError(
      `@AgentFunction on ${where}: only methods can be tools (not getters, setters or fields).`,
    );
  validateAgentFunctionOptions(options, where);
  recordFunction(target.constructor, propertyKey, options);
}

/** Standard decorators: `(method, context)`; the class does not exist yet, so errors name the method. */
function decorateStandard(options: unknown, method: unknown, context: DecoratorContext): void {
  const name = typeof context.name === "string" ? context.name : String(context.name);
  const where = `method '${name}'`;
  if (context.kind !== "method" || typeof method !== "function") {
    throw new ToolDefinitionError(
      `@AgentFunction on ${context.kind} '${name}': only methods can be tools (not getters, setters, fields or classes).`,
    );
  }
  const ctx = context as ClassMethodDecoratorContext;
  if (ctx.static)
    throw new ToolDefinitionError(
      `@AgentFunction on static ${where}: static methods cannot be tools; make it an instance method.`,
    );
  if (ctx.private)
    throw new ToolDefinitionError(
      `@AgentFunction on ${where}: private (#) methods cannot be tools; make it a public method.`,
    );
  if (typeof ctx.name === "symbol")
    throw new ToolDefinitionError(`@AgentFunction on ${where}: symbol-named methods cannot be tools.`);
  validateAgentFunctionOptions(options, where);
  recordStandardFunction(method, ctx.metadata, ctx.name, options);
}

/**
 * Declares a method as a tool. The method's first parameter must accept `z.output` of `input`
 * (checked at compile time); its second is a {@link ToolContext}. The class needs
 * `@AgentFunctionGroup()`. Works with `experimentalDecorators` and with standard decorators.
 *
 * @example
 * ```ts
 * @AgentFunctionGroup()
 * class OrderTools {
 *   @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string() }), readOnly: true })
 *   getOrderStatus({ orderId }: { orderId: string }) { return ToolResult.ok(lookup(orderId)); }
 * }
 * ```
 */
export function AgentFunction<S extends ToolInputSchema>(given: AgentFunctionOptions<S>): AgentFunctionDecorator<S> {
  // Own properties only: a polluted Object.prototype makes no tool idempotent, read-only or free of
  // approval, and adds no middleware.
  let options: unknown = given;
  if (typeof given === "object" && given !== null) {
    const own = ownOptions(given as AgentFunctionOptions, AGENT_FUNCTION_KEYS) as unknown as Record<string, unknown>;
    // Unknown own keys stay, so a misspelt option is still refused by name.
    for (const key of Object.keys(given))
      if (!Object.hasOwn(own, key)) own[key] = (given as unknown as Record<string, unknown>)[key];
    options = own;
  }
  const decorate = (first: unknown, second: unknown, third?: PropertyDescriptor): void => {
    if (isStandardMethodCall(second)) decorateStandard(options, first, second);
    else decorateLegacy(options, first as object, second as string | symbol, third);
  };
  return decorate as AgentFunctionDecorator<S>;
}
