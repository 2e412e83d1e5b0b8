import { type AgentFunctionDescriptor, toolEffects } from "@needlework/core";
import type { DeclaredAgentInfo } from "../builder/agent-diagnostics.js";
import { selectTools } from "../agent/loop/tool-scope.js";
import type { AgentFrameworkPlugin, BuildDiagnostic } from "../plugin.js";

/** The three capabilities of the Rule of Two a set of tools holds, each named by the tools that give it. */
function capabilities(tools: readonly AgentFunctionDescriptor[]) {
  return {
    untrusted: tools.filter((t) => t.options.reads === "untrusted").map((t) => t.name),
    sensitive: tools.filter((t) => t.options.sensitive === true).map((t) => t.name),
    external: tools.filter((t) => toolEffects(t.options) === "external").map((t) => t.name),
  };
}

const list = (names: readonly string[]): string =>
  names.length <= 3
    ? names.map((n) => `'${n}'`).join(", ")
    : `${names
        .slice(0, 3)
        .map((n) => `'${n}'`)
        .join(", ")} and ${names.length - 3} more`;

/**
 * NW010: an agent (each declared agent; the factory's whole tool set when none is declared) whose
 * tools combine untrusted reads, sensitive reads and external effects, with no plugin gating calls
 * (`usingInjectionPolicy()`). Meta's Rule of Two: at most two of the three without supervision.
 * @internal
 */
export function diagnoseInjection(
  tools: readonly AgentFunctionDescriptor[],
  agents: readonly DeclaredAgentInfo[],
  plugins: readonly AgentFrameworkPlugin[],
): BuildDiagnostic[] {
  if (plugins.some((p) => typeof p.gateCalls === "function")) return [];
  const scopes: { agent?: string; tools: readonly AgentFunctionDescriptor[] }[] =
    agents.length === 0
      ? [{ tools }]
      : agents.map((a) => {
          const names = selectTools(tools, a.definition).names;
          return { agent: a.name, tools: names === undefined ? tools : tools.filter((t) => names.has(t.name)) };
        });
  const out: BuildDiagnostic[] = [];
  for (const scope of scopes) {
    const held = capabilities(scope.tools);
    if (held.untrusted.length === 0 || held.sensitive.length === 0 || held.external.length === 0) continue;
    const who = scope.agent === undefined ? "The factory's tools" : `Agent '${scope.agent}'`;
    out.push({
      id: "NW010",
      severity: "warning",
      ...(scope.agent === undefined ? {} : { agent: scope.agent }),
      message: `${who} combine untrusted reads (${list(held.untrusted)}), sensitive reads (${list(held.sensitive)}) and external effects (${list(held.external)}) with no injection policy: text a third party wrote could make the model send private data out. Add usingInjectionPolicy({ afterUntrusted: "arguments" }) (or "approve"/"deny"), or declare effects ("none", "internal") on tools that change nothing outside.`,
    });
  }
  return out;
}
