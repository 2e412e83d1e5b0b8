import type { AgentFunctionDescriptor } from "@needlework/core";
import type { AgentDefinition } from "../agent/agent.options.js";
import { type DeclaredAgentClass, requireDeclaredAgent } from "../agent/declared-agent.js";
import { describeUnmatched, selectTools } from "../agent/loop/tool-scope.js";
import type { BuildDiagnostic } from "../plugin.js";

/** A declared agent the factory knows by name. */
export interface DeclaredAgentInfo {
  readonly name: string;
  readonly description: string | undefined;
  /** The class decorated with `@Agent`. */
  readonly target: DeclaredAgentClass;
  /** What `@Agent` declared. */
  readonly definition: AgentDefinition;
}

/** The declared agents of `addAgents(...)`, each class once, in registration order. @internal */
export function declaredAgents(classes: readonly DeclaredAgentClass[]): DeclaredAgentInfo[] {
  return [...new Set(classes)].map((target) => {
    const definition = requireDeclaredAgent(target, "addAgents");
    return { name: definition.name, description: definition.description, target, definition };
  });
}

/**
 * Checks declared agents against the factory's tools: two agents with one name (NW008), and
 * function groups or tool classes an agent names that match nothing the factory offers (NW007).
 * Both are errors: an agent built from either would silently be another agent than declared.
 * @internal
 */
export function diagnoseAgents(
  agents: readonly DeclaredAgentInfo[],
  tools: readonly AgentFunctionDescriptor[],
): BuildDiagnostic[] {
  const out: BuildDiagnostic[] = [];
  const byName = new Map<string, DeclaredAgentInfo>();
  for (const agent of agents) {
    const other = byName.get(agent.name);
    if (other) {
      out.push({
        id: "NW008",
        severity: "error",
        agent: agent.name,
        message: `Two agents are named '${agent.name}': ${other.target.name} and ${agent.target.name}. Give one a different \`name\` in @Agent; factory.createAgent("${agent.name}") must mean one agent.`,
      });
    } else byName.set(agent.name, agent);
    const unmatched = describeUnmatched(selectTools(tools, agent.definition), tools);
    if (unmatched !== undefined) {
      out.push({
        id: "NW007",
        severity: "error",
        agent: agent.name,
        message: `Agent '${agent.name}' (${agent.target.name}): ${unmatched}. Fix the name in @Agent, or add the tool class with addAgentFunctions.`,
      });
    }
  }
  return out;
}
