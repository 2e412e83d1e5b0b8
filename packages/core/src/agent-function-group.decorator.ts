import { inject, injectable } from "tsyringe";
import type {
  AgentFunctionDescriptor,
  AgentFunctionGroupOptions,
  AgentFunctionOptions,
  RoundPolicy,
  ToolClass,
} from "./agent-function.options.js";
import { agentFunctionRegistry } from "./agent-function-registry.js";
import { closest } from "./closest-name.js";
import { checkClassDecoratorContext } from "./decorator-context.js";
import { ToolDefinitionError } from "./errors.js";
import { ownFunctions } from "./metadata.js";

const POLICIES: readonly RoundPolicy[] = ["best-effort", "all-or-nothing", "fail-fast"];
const KNOWN = new Set(["groups", "roundPolicy", "lifetime", "inject"]);

function normalize(
  nameOrOptions: string | readonly string[] | AgentFunctionGroupOptions | undefined,
  target: ToolClass,
): AgentFunctionGroupOptions {
  const className = target.name;
  const fail = (problem: string): never => {
    throw new ToolDefinitionError(`@AgentFunctionGroup on ${className}: ${problem}`);
  };
  if (nameOrOptions === undefined) return {};
  if (typeof nameOrOptions === "string")
    return nameOrOptions.trim() ? { groups: [nameOrOptions] } : fail("a group name must be a non-empty string.");
  if (Array.isArray(nameOrOptions)) {
    if (!nameOrOptions.every((g) => typeof g === "string" && g.trim() !== ""))
      fail("group names must be non-empty strings.");
    return { groups: [...(nameOrOptions as readonly string[])] };
  }
  if (typeof nameOrOptions !== "object" || nameOrOptions === null)
    return fail("expected a group name, a list of names or an options object.");
  const options = nameOrOptions as AgentFunctionGroupOptions;
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    const hint = closest(key, KNOWN);
    fail(`unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ""} Known options: ${[...KNOWN].join(", ")}.`);
  }
  if (
    options.groups !== undefined &&
    (!Array.isArray(options.groups) || !options.groups.every((g) => typeof g === "string" && g.trim() !== ""))
  )
    fail("`groups` must be an array of non-empty strings.");
  if (options.roundPolicy !== undefined && !POLICIES.includes(options.roundPolicy))
    fail(`\`roundPolicy\` must be one of ${POLICIES.join(", ")}.`);
  if (options.lifetime !== undefined && options.lifetime !== "singleton" && options.lifetime !== "transient")
    fail("`lifetime` must be 'singleton' or 'transient'.");
  if (options.inject !== undefined) {
    const tokens: readonly unknown[] = Array.isArray(options.inject)
      ? options.inject
      : fail(
          "`inject` must be an array of tsyringe tokens, one per constructor parameter: `inject: [OrderRepository]`.",
        );
    const bad = tokens.findIndex(
      (t) =>
        typeof t !== "function" &&
        typeof t !== "string" &&
        typeof t !== "symbol" &&
        !(typeof t === "object" && t !== null),
    );
    if (bad >= 0)
      fail(
        `\`inject[${bad}]\` is ${tokens[bad] === null ? "null" : typeof tokens[bad]}: each entry is a tsyringe token (a class, string, symbol or delay(() => Class)). A class defined later in the file needs \`delay(() => Class)\`.`,
      );
    if (tokens.length < target.length) {
      fail(
        `the constructor takes ${target.length} parameter(s) but \`inject\` names ${tokens.length}. Name one token per parameter, in order.`,
      );
    }
  }
  return { ...options };
}

/** The `@AgentFunction` options of a class and its decorated ancestors; subclasses override. */
function collectFunctions(target: ToolClass): Map<string, AgentFunctionOptions> {
  const chain: object[] = [];
  for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  const merged = new Map<string, AgentFunctionOptions>();
  for (const c of chain) for (const [key, options] of ownFunctions(c)) merged.set(key, options);
  return merged;
}

/**
 * Marks a class as a group of tools, registers it in {@link agentFunctionRegistry}, and makes it
 * injectable with tsyringe. Constructor dependencies come from `inject` when given, else from the
 * `design:paramtypes` that tsc/swc emit with `emitDecoratorMetadata`. Works with
 * `experimentalDecorators` and with standard decorators. Accepts a group name, a list of names,
 * or {@link AgentFunctionGroupOptions}.
 *
 * @example
 * ```ts
 * @AgentFunctionGroup({ groups: ["orders"], roundPolicy: "all-or-nothing", inject: [OrderRepository] })
 * export class OrderTools { constructor(private readonly orders: OrderRepository) {} }
 * ```
 */
export function AgentFunctionGroup(nameOrOptions?: string | readonly string[] | AgentFunctionGroupOptions) {
  return <C extends ToolClass>(target: C, context?: ClassDecoratorContext<C>): void => {
    checkClassDecoratorContext(context, "@AgentFunctionGroup");
    const options = normalize(nameOrOptions, target);
    const pending = collectFunctions(target);
    const functions: AgentFunctionDescriptor[] = [];
    const names = new Map<string, string>();
    for (const [methodName, fnOptions] of pending) {
      const name = fnOptions.name ?? methodName;
      const other = names.get(name);
      if (other !== undefined) {
        throw new ToolDefinitionError(
          `@AgentFunctionGroup on ${target.name}: methods '${other}' and '${methodName}' both declare the tool '${name}'. Give one a different \`name\`.`,
        );
      }
      names.set(name, methodName);
      functions.push({
        name,
        description: fnOptions.description,
        input: fnOptions.input,
        target,
        methodName,
        options: fnOptions,
        group: options,
      });
    }
    // tsyringe's own `@inject(token)` parameter decorator, applied by hand: its tokens override
    // `design:paramtypes` position by position, so `inject` wins where both exist.
    options.inject?.forEach((token, index) => inject(token)(target, undefined, index));
    injectable()(target as unknown as new (...args: never[]) => unknown);
    agentFunctionRegistry.add({ target, options, functions });
  };
}
