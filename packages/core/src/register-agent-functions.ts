import type { DependencyContainer, InjectionToken } from "tsyringe";
import type { AgentFunctionDescriptor, ToolClass } from "./agent-function.options.js";
import { agentFunctionRegistry } from "./agent-function-registry.js";
import { ToolRegistrationError } from "./errors.js";
import { ownFunctions } from "./metadata.js";

function describe(value: unknown): string {
  if (typeof value === "function") return `class ${value.name || "(anonymous)"}`;
  return value === null ? "null" : typeof value;
}

/**
 * Refuses a class tsyringe could not construct: its constructor takes parameters, yet neither
 * `inject` nor compiler metadata (`design:paramtypes`, or tsyringe's own `@inject` tokens) says
 * what to pass. Without this, every call of its tools would fail later with "TypeInfo not known".
 */
function checkResolvable(target: ToolClass, inject: readonly unknown[] | undefined): void {
  if (target.length === 0 || inject !== undefined) return;
  if (Reflect.getMetadata("design:paramtypes", target) !== undefined) return;
  const tokens = (Reflect.getOwnMetadata("injectionTokens", target) ?? {}) as Record<string, unknown>;
  if (Array.from({ length: target.length }, (_, i) => i).every((i) => i in tokens)) return;
  const name = target.name || "(anonymous class)";
  throw new ToolRegistrationError(
    `Class ${name} takes ${target.length} constructor parameter(s), but nothing says what to inject: it has no \`inject\` option and no \`design:paramtypes\` metadata (tsx, esbuild, Vite and Bun emit none). Fix it either way: name the dependencies in order with @AgentFunctionGroup({ inject: [...] }) on ${name} (one tsyringe token per constructor parameter, e.g. \`inject: [OrderRepository]\`), or compile with tsc or swc with \`experimentalDecorators\` and \`emitDecoratorMetadata\` enabled.`,
  );
}

/**
 * The tools of `classes`, checked: every class must carry `@AgentFunctionGroup`, and no two tools
 * may share a name (the error names both classes and methods), and a class whose constructor
 * takes parameters must say what to inject (`inject`, or compiler metadata).
 */
export function collectAgentFunctions(classes: readonly ToolClass[]): AgentFunctionDescriptor[] {
  const byName = new Map<string, AgentFunctionDescriptor>();
  const seen = new Set<ToolClass>();
  for (const target of classes) {
    if (typeof target !== "function") {
      throw new ToolRegistrationError(
        `Cannot register ${describe(target)} as agent functions: pass the class itself (e.g. \`addAgentFunctions(OrderTools)\`).`,
      );
    }
    if (seen.has(target)) continue;
    seen.add(target);
    const group = agentFunctionRegistry.get(target);
    if (!group) {
      const hasFunctions = ownFunctions(target).size > 0;
      throw new ToolRegistrationError(
        hasFunctions
          ? `Class ${target.name} has @AgentFunction methods but no @AgentFunctionGroup. Add @AgentFunctionGroup() to the class so it is registered and injectable.`
          : `Class ${target.name} is not an agent function group: decorate it with @AgentFunctionGroup() and its tool methods with @AgentFunction({ description, input }).`,
      );
    }
    checkResolvable(target, group.options.inject);
    if (group.functions.length === 0) {
      throw new ToolRegistrationError(
        `Class ${target.name} has @AgentFunctionGroup but no @AgentFunction methods: it offers no tools.`,
      );
    }
    for (const fn of group.functions) {
      const other = byName.get(fn.name);
      if (other) {
        throw new ToolRegistrationError(
          `Two tools are named '${fn.name}': ${other.target.name}.${other.methodName} and ${fn.target.name}.${fn.methodName}. Give one a different \`name\` in @AgentFunction.`,
          { toolName: fn.name },
        );
      }
      byName.set(fn.name, fn);
    }
  }
  return [...byName.values()];
}

/**
 * Registers decorated tool classes with a tsyringe container (singleton by default; a fresh
 * instance per call for `@AgentFunctionGroup({ lifetime: "transient" })`) and returns their tools.
 * A class the container already knows keeps its registration.
 *
 * @example
 * ```ts
 * registerAgentFunctions(container, OrderTools, CrmTools);
 * ```
 */
export function registerAgentFunctions(
  container: DependencyContainer,
  ...classes: ToolClass[]
): AgentFunctionDescriptor[] {
  const functions = collectAgentFunctions(classes);
  for (const target of new Set(functions.map((f) => f.target))) {
    const token = target as unknown as InjectionToken<object> & (new () => object);
    if (container.isRegistered(token, true)) continue;
    if (agentFunctionRegistry.get(target)?.options.lifetime === "transient")
      container.register(token, { useClass: token });
    else container.registerSingleton(token);
  }
  return functions;
}
