import type { AgentFunctionDescriptor } from "@needlework/core";
import type { BuildDiagnostic } from "../plugin.js";

/** The key's name as a tool body reads it: `ctx.idempotencyKey`, `{ idempotencyKey }`. */
const READS_KEY = /\bidempotencyKey\b/;

/** The source of a tool's body: its class method, or a `defineTool` execute function. */
function bodySource(tool: AgentFunctionDescriptor): string | undefined {
  const body = tool.execute ?? (tool.target.prototype as Record<string, unknown> | undefined)?.[tool.methodName];
  if (typeof body !== "function") return undefined;
  try {
    return Function.prototype.toString.call(body);
  } catch {
    return undefined;
  }
}

/**
 * NW014: a tool whose body reads `ctx.idempotencyKey` and that declares neither `idempotent: true`
 * nor `idempotent: false`. Reading the key does not make a tool idempotent (a tool that only logs it
 * would repeat a landed effect): it is retried after a possibly-landed failure only when it
 * declares `idempotent: true`. Read from the body's source, so a key passed on through a helper is
 * seen only where the body names it. @internal
 *
 * @example
 * ```ts
 * const diagnostics = diagnoseKeyReads(tools);
 * ```
 */
export function diagnoseKeyReads(tools: readonly AgentFunctionDescriptor[]): BuildDiagnostic[] {
  const out: BuildDiagnostic[] = [];
  for (const tool of tools) {
    const { idempotent, readOnly } = tool.options;
    if (idempotent !== undefined || readOnly === true || tool.server !== undefined) continue;
    const source = bodySource(tool);
    if (source === undefined || !READS_KEY.test(source)) continue;
    out.push({
      id: "NW014",
      severity: "warning",
      tool: tool.name,
      message: `Tool '${tool.name}' reads ctx.idempotencyKey but does not declare \`idempotent\`: reading the key does not make it idempotent, so a failure after which its effect may have landed (a timeout, a reset) is not retried. If the service applies a repeat with the same key at most once, declare \`idempotent: true\`; if the key is only logged, declare \`idempotent: false\`.`,
    });
  }
  return out;
}
