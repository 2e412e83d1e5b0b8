import type { DependencyContainer, InjectionToken } from "tsyringe";
import type { AgentFunctionDescriptor, ToolClass } from "./agent-function.options.js";
import { agentFunctionRegistry } from "./agent-function-registry.js";
import { pendingFunctions } from "./metadata.js";
import { ToolRegistrationError } from "./errors.js";

function describe(value: unknown): string {
  if (typeof value === "function") return `class ${value.name || "(anonymous)"}`;
  return value === null ? "null" : typeof value;
}

/**
 * The tools of `classes`, checked: every class must carry `@AgentFunctionGroup`, and no two tools
 * may share a name (the error names both classes and methods).
 */
export function collectAgentFunctions(classes: readonly ToolClass[]): AgentFunctionDescriptor[] {
  const byName = new Map<string, AgentFunctionDescriptor>();
  const seen = new Set<ToolClass>();
  for (const target of classes) {
    if (typeof target !== "function") {
      throw new ToolRegistrationError(`Cannot register ${describe(target)} as agent functions: pass the class itself (e.g. \`addAgentFunctions(OrderTools)\`).`);
    }
    if (seen.has(target)) continue;
    seen.add(target);
    const group = agentFunctionRegistry.get(target);
    if (!group) {
      const hasFunctions = pendingFunctions.has(target);
      throw new ToolRegistrationError(
        hasFunctions
          ? `Class ${target.name} has @AgentFunction methods but no @AgentFunctionGroup. Add @AgentFunctionGroup() to the class so it is registered and injectable.`
          : `Class ${target.name} is not an agent function group: decorate it with @AgentFunctionGroup() and its tool methods with @AgentFunction({ description, input }).`,
      );
    }
    if (group.functions.length === 0) {
      throw new ToolRegistrationError(`Class ${target.name} has @AgentFunctionGroup but no @AgentFunction methods: it offers no tools.`);
    }
    for (const fn of group.functions) {
      const other = byName.get(fn.name);
      if (other) {
        throw new ToolRegistrationError(`Two tools are named '${fn.name}': ${other.target.name}.${other.methodName} and ${fn.target.name}.${fn.methodName}. Give one a different \`name\` in @AgentFunction.`, { toolName: fn.name });
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
export function registerAgentFunctions(container: DependencyContainer, ...classes: ToolClass[]): AgentFunctionDescriptor[] {
  const functions = collectAgentFunctions(classes);
  for (const target of new Set(functions.map((f) => f.target))) {
    const token = target as unknown as InjectionToken<object> & (new () => object);
    if (container.isRegistered(token, true)) continue;
    if (agentFunctionRegistry.get(target)?.options.lifetime === "transient") container.register(token, { useClass: token });
    else container.registerSingleton(token);
  }
  return functions;
}
