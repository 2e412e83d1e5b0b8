import { strictFallbackReasons, type ToolDefinition } from "@needlework/core";
import type { AgentFrameworkPlugin, BuildDiagnostic, PluginContext } from "../plugin.js";
import { hasTrait, PLUGIN_TRAITS } from "../plugin.js";

/** Tool names every major provider accepts (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`). */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The ids `buildAgentFactory()` may report, with what each means. Stable: tools and docs refer to them.
 */
export const BUILD_DIAGNOSTIC_IDS = {
  NW001: "tool-result middleware registered before resilience: it catches failures before they can be retried",
  NW002: "a tool name a provider would reject (OpenAI and Anthropic accept ^[a-zA-Z0-9_-]{1,64}$)",
  NW003: "a tool or parameter without a description",
  NW004: "a string parameter described as JSON: declare a structured schema instead",
  NW005: "a plugin registered twice",
  NW006: "a plugin registered inside the tool-result middleware sees raw values, not outcomes",
  NW007: "a declared agent names a function group (or tool class) that matches no tool of the factory",
  NW008: "two declared agents share a name",
  NW009: "a tool's schema is outside OpenAI's strict subset, so toOpenAITools sends it non-strict",
  NW010: "an agent combines untrusted reads, sensitive reads and external effects with no injection policy",
  NW011: "two plugins trace runs and calls (usingDiagnostics({ tracer }) and openTelemetry()): every span twice",
  NW012: "two tools published under one name, one of them added with addTools (defineTool, a connected MCP server)",
  NW013:
    "usingArtifacts() registered inside redaction or the tool-result middleware: it would store what they have not shaped",
  NW014: "a tool reads ctx.idempotencyKey without declaring idempotent: reading the key does not make it idempotent",
} as const;

/** A diagnostic id. */
export type BuildDiagnosticId = keyof typeof BUILD_DIAGNOSTIC_IDS;

const JSON_WORDS = /\b(json|serialized|stringified)\b/i;

function checkOrder(plugins: readonly AgentFrameworkPlugin[]): BuildDiagnostic[] {
  const out: BuildDiagnostic[] = [];
  // Found by what they do (typed members), never by name: a plugin of anyone's is checked alike.
  const resultAt = plugins.findIndex((p) => p.outcomeStyle !== undefined);
  const resilienceAt = plugins.findIndex((p) => hasTrait(p, PLUGIN_TRAITS.retries));
  if (resultAt !== -1 && resilienceAt > resultAt) {
    out.push({
      id: "NW001",
      severity: "warning",
      plugin: "tool-result",
      message:
        "usingToolResultMiddleware() is registered before usingResilience(): the result middleware turns failures into outcomes before resilience can retry them, so retries are defeated. Call usingResilience() first.",
    });
  }
  if (resultAt !== -1) {
    for (const { name } of plugins.slice(0, resultAt).filter((p) => hasTrait(p, PLUGIN_TRAITS.shapesValues))) {
      const done = name === "redaction" ? "redacted" : name === "truncation" ? "truncated" : "shaped";
      out.push({
        id: "NW006",
        severity: "info",
        plugin: name,
        message: `${name} is registered before usingToolResultMiddleware(): it shapes raw tool values, so failure messages and suggestions the result middleware adds are not ${done}. Register it after usingToolResultMiddleware().`,
      });
    }
  }
  const tracing = plugins.filter((p) => hasTrait(p, PLUGIN_TRAITS.tracesRuns));
  if (tracing.length > 1) {
    const names = tracing.map((p) => `'${p.name}'`).join(" and ");
    out.push({
      id: "NW011",
      severity: "warning",
      plugin: tracing[1]!.name,
      message: `The plugins ${names} both make OpenTelemetry spans for runs and calls: every run, model call and tool call would be traced twice. Keep one: usingDiagnostics({ tracer }) when you also want its records and logs, openTelemetry({ tracer }) when spans are all you want.`,
    });
  }
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (seen.has(plugin.name)) {
      out.push({
        id: "NW005",
        severity: "warning",
        plugin: plugin.name,
        message: `The plugin '${plugin.name}' is registered twice: its behaviour would apply twice (e.g. retries multiply). Register it once.`,
      });
    }
    seen.add(plugin.name);
  }
  return out;
}

function checkParameters(tool: string, schema: unknown, path: string, out: BuildDiagnostic[]): void {
  if (typeof schema !== "object" || schema === null) return;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (!properties) return;
  for (const [name, property] of Object.entries(properties)) {
    const at = path ? `${path}.${name}` : name;
    const p = (property ?? {}) as { description?: unknown; type?: unknown };
    if (typeof p.description !== "string" || p.description.trim() === "") {
      out.push({
        id: "NW003",
        severity: "warning",
        tool,
        message: `Parameter '${at}' of tool '${tool}' has no description: add .describe("...") so the model knows what to pass.`,
      });
    } else if (p.type === "string" && JSON_WORDS.test(p.description)) {
      out.push({
        id: "NW004",
        severity: "warning",
        tool,
        message: `Parameter '${at}' of tool '${tool}' is a string described as JSON: models often get escaping wrong. Declare the structure with a zod object or array instead (like Needlr's NDLRMAF030).`,
      });
    }
    checkParameters(tool, property, at, out);
  }
}

function checkTools(definitions: readonly ToolDefinition[], remote: ReadonlySet<string>): BuildDiagnostic[] {
  const out: BuildDiagnostic[] = [];
  for (const d of definitions) {
    if (!PROVIDER_TOOL_NAME.test(d.name)) {
      out.push({
        id: "NW002",
        severity: "warning",
        tool: d.name,
        message: `Tool name '${d.name}' would be rejected by OpenAI and Anthropic, which accept ^[a-zA-Z0-9_-]{1,64}$. Set a conforming \`name\` in @AgentFunction.`,
      });
    }
    if (d.description.trim() === "")
      out.push({ id: "NW003", severity: "warning", tool: d.name, message: `Tool '${d.name}' has no description.` });
    // A remote tool's parameters are its server's: the user cannot add a description to them.
    if (!remote.has(d.name)) checkParameters(d.name, d.parameters, "", out);
    const notStrict = strictFallbackReasons(d);
    if (notStrict.length > 0) {
      out.push({
        id: "NW009",
        severity: "info",
        tool: d.name,
        message: `Tool '${d.name}' is sent to OpenAI without strict mode: ${notStrict.join("; ")}.`,
      });
    }
  }
  return out;
}

/** Runs every built-in check and each plugin's own `diagnose()`. @internal */
export function diagnoseComposition(
  definitions: readonly ToolDefinition[],
  contexts: readonly PluginContext[],
  remote: ReadonlySet<string> = new Set(),
): BuildDiagnostic[] {
  const plugins = contexts[0]?.plugins ?? [];
  const out = [...checkOrder(plugins), ...checkTools(definitions, remote)];
  for (const context of contexts) out.push(...(context.plugins[context.position]!.diagnose?.(context) ?? []));
  return out;
}
