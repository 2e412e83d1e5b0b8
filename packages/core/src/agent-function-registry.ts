import type { AgentFunctionDescriptor, AgentFunctionGroupOptions, ToolClass } from "./agent-function.options.js";

/** A class decorated with `@AgentFunctionGroup`, and its tools. */
export interface AgentFunctionGroupInfo {
  readonly target: ToolClass;
  readonly options: AgentFunctionGroupOptions;
  readonly functions: readonly AgentFunctionDescriptor[];
}

/**
 * Every class decorated with `@AgentFunctionGroup`, in import order: the analog of Needlr's
 * generated `AllFunctionTypes`. One registry per process, shared by every installed copy of
 * `@needlework/core` (ESM and CommonJS alike).
 *
 * @example
 * ```ts
 * for (const group of agentFunctionRegistry.list()) console.log(group.target.name, group.functions.map((f) => f.name));
 * ```
 */
export class AgentFunctionRegistry implements Iterable<AgentFunctionGroupInfo> {
  private readonly groups = new Map<ToolClass, AgentFunctionGroupInfo>();

  /** Records a decorated class; a class decorated again replaces its entry. @internal */
  add(info: AgentFunctionGroupInfo): void {
    this.groups.set(info.target, info);
  }

  /** The entry of a decorated class, or `undefined`. */
  get(target: ToolClass): AgentFunctionGroupInfo | undefined {
    return this.groups.get(target);
  }

  /** Whether the class is decorated with `@AgentFunctionGroup`. */
  has(target: ToolClass): boolean {
    return this.groups.has(target);
  }

  /** The decorated classes, optionally filtered (by group, tag, anything). */
  list(filter?: (group: AgentFunctionGroupInfo) => boolean): AgentFunctionGroupInfo[] {
    const all = [...this.groups.values()];
    return filter ? all.filter(filter) : all;
  }

  /** How many classes are registered. */
  get size(): number {
    return this.groups.size;
  }

  /** Forgets a class (tests that declare classes on the fly). */
  delete(target: ToolClass): boolean {
    return this.groups.delete(target);
  }

  [Symbol.iterator](): Iterator<AgentFunctionGroupInfo> {
    return this.groups.values();
  }
}

const KEY = Symbol.for("needlework.agent-function-registry");
const holder = globalThis as { [KEY]?: AgentFunctionRegistry };

/** The process-wide registry of decorated tool classes. */
export const agentFunctionRegistry: AgentFunctionRegistry = (holder[KEY] ??= new AgentFunctionRegistry());
