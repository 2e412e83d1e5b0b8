import type { AgentFunctionDescriptor, DefinedTool } from "@needlework/core";
import { describeOrigin } from "@needlework/core/internal";
import type { BuildDiagnostic } from "../plugin.js";

/**
 * NW012: a tool added with `addTools(...)` (defined, or a connected server's) published under a name
 * another tool of the factory already has. The model could not tell the two apart, so the build
 * refuses it (an error, not a warning). Tools of two decorated classes that collide are refused
 * earlier, by `collectAgentFunctions` (`ToolRegistrationError`). @internal
 *
 * @example
 * ```ts
 * const found = diagnoseNameCollisions(collectAgentFunctions(classes), definedTools);
 * ```
 */
export function diagnoseNameCollisions(
  declared: readonly AgentFunctionDescriptor[],
  defined: readonly DefinedTool[],
): BuildDiagnostic[] {
  const byName = new Map(declared.map((tool) => [tool.name, tool]));
  const out: BuildDiagnostic[] = [];
  for (const { descriptor } of defined) {
    const other = byName.get(descriptor.name);
    if (other === undefined) {
      byName.set(descriptor.name, descriptor);
      continue;
    }
    const remote = descriptor.server !== undefined || other.server !== undefined;
    out.push({
      id: "NW012",
      severity: "error",
      tool: descriptor.name,
      message: `Two tools are published as '${descriptor.name}': ${describeOrigin(other)} and ${describeOrigin(descriptor)}. The model could not tell them apart. ${
        remote
          ? "Connect the server under another name (connectMcpServer(name, ...) prefixes its tools with it), or rename the other tool."
          : "Give one a different `name`."
      }`,
    });
  }
  return out;
}

/** The names of the tools that run on a server: their parameters are the server's to describe. @internal */
export function remoteTools(tools: readonly AgentFunctionDescriptor[]): ReadonlySet<string> {
  return new Set(tools.filter((tool) => tool.server !== undefined).map((tool) => tool.name));
}
