import {
  abortReason,
  type AgentFunctionDescriptor,
  createToolOutcome,
  type ToolClass,
  type ToolInvoker,
} from "@needlework/core";
import { nextId } from "@needlework/core/kit";

/**
 * Which tools an agent picks: the tools of classes in any of `functionGroups`
 * (`@AgentFunctionGroup("orders")`) plus the tools of the classes in `functions`.
 * @internal
 */
export interface ToolSelection {
  readonly functionGroups?: readonly string[] | undefined;
  readonly functions?: readonly ToolClass[] | undefined;
}

/** The tools a selection picks, and what it names that matches nothing. @internal */
export interface SelectedTools {
  /** `undefined` when the selection names nothing: every tool. */
  readonly names: ReadonlySet<string> | undefined;
  readonly unknownGroups: readonly string[];
  readonly unknownClasses: readonly ToolClass[];
}

/** Whether a selection names any group or class. @internal */
export function namesTools(selection: ToolSelection): boolean {
  return (selection.functionGroups?.length ?? 0) > 0 || (selection.functions?.length ?? 0) > 0;
}

/**
 * Resolves a selection against the tools on offer: the union of the named groups and classes.
 * @internal
 */
export function selectTools(tools: readonly AgentFunctionDescriptor[], selection: ToolSelection): SelectedTools {
  if (!namesTools(selection)) return { names: undefined, unknownGroups: [], unknownClasses: [] };
  const groups = new Set(selection.functionGroups ?? []);
  const classes = new Set(selection.functions ?? []);
  const names = new Set<string>();
  const matchedGroups = new Set<string>();
  const matchedClasses = new Set<ToolClass>();
  for (const tool of tools) {
    const inGroups = (tool.group.groups ?? []).filter((g) => groups.has(g));
    for (const g of inGroups) matchedGroups.add(g);
    if (classes.has(tool.target)) matchedClasses.add(tool.target);
    if (inGroups.length > 0 || classes.has(tool.target)) names.add(tool.name);
  }
  return {
    names,
    unknownGroups: [...groups].filter((g) => !matchedGroups.has(g)),
    unknownClasses: [...classes].filter((c) => !matchedClasses.has(c)),
  };
}

/** Every group name the tools belong to, sorted. @internal */
export function groupsOffered(tools: readonly AgentFunctionDescriptor[]): string[] {
  return [...new Set(tools.flatMap((t) => t.group.groups ?? []))].sort();
}

/**
 * Explains what a selection names that matches nothing, or `undefined` when all of it matched.
 * @internal
 */
export function describeUnmatched(
  selected: SelectedTools,
  tools: readonly AgentFunctionDescriptor[],
): string | undefined {
  const parts: string[] = [];
  if (selected.unknownGroups.length > 0) {
    const offered = groupsOffered(tools);
    parts.push(
      `function group${selected.unknownGroups.length === 1 ? "" : "s"} ${selected.unknownGroups.map((g) => `'${g}'`).join(", ")} match${selected.unknownGroups.length === 1 ? "es" : ""} no tool class ` +
        `(groups on offer: ${offered.length === 0 ? 'none; name one with @AgentFunctionGroup("orders")' : offered.join(", ")})`,
    );
  }
  if (selected.unknownClasses.length > 0) {
    parts.push(
      `${selected.unknownClasses.map((c) => c.name || "(anonymous class)").join(", ")} ${selected.unknownClasses.length === 1 ? "is" : "are"} not among the factory's tool classes (add it with addAgentFunctions)`,
    );
  }
  return parts.length === 0 ? undefined : parts.join("; ");
}

/**
 * A view of `invoker` that offers and allows only `names`: `definitions`, `tools` and `get` see
 * only those tools, and a call to any other tool is answered `UNKNOWN_TOOL` without reaching the
 * pipeline. The agent's guarantee: what it does not offer, it does not run.
 * @internal
 */
export function scopeToolInvoker(invoker: ToolInvoker, names: ReadonlySet<string>): ToolInvoker {
  const tools = invoker.tools.filter((t) => names.has(t.name));
  const definitions = invoker.definitions.filter((d) => names.has(d.name));
  const offered = tools.map((t) => t.name);
  const listed = offered.slice(0, 20).join(", ") + (offered.length > 20 ? ", ..." : "");
  return {
    definitions,
    tools,
    get: (name) => (names.has(name) ? invoker.get(name) : undefined),
    invoke: async (call, options) => {
      if (typeof call.name === "string" && names.has(call.name)) return invoker.invoke(call, options);
      if (options?.signal?.aborted) throw abortReason(options.signal);
      const name = String(call.name).slice(0, 100);
      return createToolOutcome({
        status: "error",
        errorCode: "UNKNOWN_TOOL",
        message: `There is no tool named '${name}'.`,
        suggestion: `Use one of the available tools: ${listed || "(none)"}.`,
        metadata: { tool: name, callId: call.callId ?? nextId("call"), attempts: 0, latencyMs: 0 },
      });
    },
  };
}

/**
 * The tools an agent offers, from `pipeline` (every tool of its pipeline): all of them, or those of
 * its `functionGroups`/`functions`, made by `scope` (the factory composes a pipeline over those tool
 * classes; without a factory, a filtering view). Throws a `TypeError` naming what matched nothing.
 * @internal
 */
export function offeredInvoker(
  agent: string,
  pipeline: ToolInvoker,
  selection: ToolSelection,
  scope: (classes: readonly ToolClass[], names: ReadonlySet<string>) => ToolInvoker,
): ToolInvoker {
  const selected = selectTools(pipeline.tools, selection);
  const unmatched = describeUnmatched(selected, pipeline.tools);
  if (unmatched !== undefined)
    throw new TypeError(
      `createAgent: agent '${agent}': ${unmatched}. Fix the name, or add the tool class to the factory.`,
    );
  const names = selected.names;
  if (names === undefined) return pipeline;
  return scope([...new Set(pipeline.tools.filter((t) => names.has(t.name)).map((t) => t.target))], names);
}
