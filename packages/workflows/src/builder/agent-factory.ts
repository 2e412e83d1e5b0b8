import { formatToolOutcome, type ToolInvoker, type ToolOutcome, type ToolOutcomeStyle } from "@needlework/core";
import { type Agent, type CreateAgentOptions, createAgent } from "../agent/index.js";
import type { AgentFrameworkPlugin, BuildDiagnostic } from "../plugin.js";

/** One stage of the composed pipeline, outermost first. */
export interface PipelineStage {
  readonly name: string;
  readonly description: string;
}

/**
 * What `buildAgentFactory()` returns: the composed tool invoker, the build diagnostics, and
 * `createAgent` for agent loops over these tools.
 */
export interface AgentFactory {
  /** Invokes tools through the whole composed pipeline. */
  readonly tools: ToolInvoker;
  /** Build findings (NW001 ...), also reported when not fatal. */
  readonly diagnostics: readonly BuildDiagnostic[];
  /** The plugins, in registration order (first nearest the tool body). */
  readonly plugins: readonly AgentFrameworkPlugin[];
  /** The composed pipeline, outermost first, ending with the tool body. */
  readonly pipeline: readonly PipelineStage[];
  /** The pipeline as text, one numbered stage per line, outermost first. */
  describePipeline(): string;
  /** Renders an outcome as the model reads it, in the style chosen with `usingToolResultMiddleware`. */
  formatOutcome(outcome: ToolOutcome): string;
  /** Applies every plugin's `redact` (redaction) to a value leaving by another way than a tool result. */
  redact<T>(value: T): T;
  /** Creates an agent whose tool calls run through this pipeline. */
  createAgent(options: CreateAgentOptions): Agent;
}

/** @internal */
export function createAgentFactory(parts: { invoker: ToolInvoker; plugins: readonly AgentFrameworkPlugin[]; diagnostics: readonly BuildDiagnostic[] }): AgentFactory {
  const { invoker, plugins, diagnostics } = parts;
  const resultPlugin = plugins.find((p) => p.name === "tool-result") as (AgentFrameworkPlugin & { options?: { style?: ToolOutcomeStyle } }) | undefined;
  const style: ToolOutcomeStyle = resultPlugin?.options?.style ?? "envelope";
  const redactors = plugins.filter((p) => typeof p.redact === "function");
  const pipeline: PipelineStage[] = [
    ...[...plugins].reverse().map((p) => ({ name: p.name, description: p.describe?.() ?? p.name })),
    { name: "tool-middleware", description: "tool-scoped middleware from @AgentFunction({ middleware })" },
    { name: "tool", description: "the tool body" },
  ];
  const redact = <T>(value: T): T => redactors.reduce<unknown>((v, p) => p.redact!(v), value) as T;
  return {
    tools: invoker,
    diagnostics,
    plugins,
    pipeline,
    describePipeline: () => pipeline.map((stage, i) => `${i + 1}. ${stage.description}${i === 0 ? "  (outermost)" : ""}`).join("\n"),
    formatOutcome: (outcome) => formatToolOutcome(outcome, { style }),
    redact,
    createAgent: (options) => createAgent({ invoker, redact, formatOutcome: (outcome) => formatToolOutcome(outcome, { style }) }, options),
  };
}
