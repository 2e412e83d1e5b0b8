import {
  formatToolOutcome,
  type ToolClass,
  type ToolInvoker,
  type ToolOutcome,
  type ToolOutcomeStyle,
} from "@needlework/core";
import { type Agent, type AgentDefinition, type ChatClient, type DeclaredAgentClass } from "../agent/index.js";
import { agentOf } from "../agent/agent.js";
import { resolveAgentOptions } from "../agent/agent-options.schema.js";
import { namesTools, offeredInvoker } from "../agent/loop/tool-scope.js";
import type { AgentRunResult } from "@needlework/core/events";
import type { RunInfo } from "../plugin.js";
import type { CallGateRequest } from "../agent/loop/call-gate.types.js";
import { requireDeclaredAgent } from "../agent/declared-agent.js";
import { metricsOf } from "../diagnostics/diagnostics.plugin.js";
import type { DiagnosticsMetrics } from "../diagnostics/diagnostics-metrics.js";
import type { AgentFrameworkPlugin, BuildDiagnostic } from "../plugin.js";
import type { ResilienceOptions } from "../resilience/index.js";
import { pluginRunObservers } from "../agent/events/subscribers.js";
import type { DeclaredAgentInfo } from "./agent-diagnostics.js";
import {
  composeInvoker,
  layersWithResilience,
  type PipelineParts,
  type PluginLayer,
  pluginTelemetry,
} from "./compose-pipeline.js";

/** One stage of the composed pipeline, outermost first. */
export interface PipelineStage {
  readonly name: string;
  readonly description: string;
}

/**
 * Options of `factory.createAgent(options)`: an agent definition, with `chatClient` optional when
 * the builder set one with `usingChatClient(client)`.
 *
 * @example
 * ```ts
 * const options: AgentOptions = { name: "support", instructions: "Answer order questions.", functionGroups: ["orders"] };
 * ```
 */
export interface AgentOptions extends AgentDefinition {
  /** The model; default: the builder's `usingChatClient(client)`. */
  readonly chatClient?: ChatClient;
}

/**
 * Changes to a declared agent for one `factory.createAgent(SupportAgent, overrides)`: any option,
 * each replacing the declared one (`chatClient` most often).
 *
 * @example
 * ```ts
 * factory.createAgent(SupportAgent, { chatClient, maxIterations: 4 });
 * ```
 */
export type AgentOverrides = Partial<AgentOptions>;

/**
 * What `buildAgentFactory()` returns: the composed tool invoker, the build diagnostics, and
 * `createAgent` for agent loops over these tools.
 */
export interface AgentFactory {
  /** Invokes tools through the whole composed pipeline. */
  readonly tools: ToolInvoker;
  /** Build findings (NW001 ...), also reported when not fatal. */
  readonly diagnostics: readonly BuildDiagnostic[];
  /** Runtime records and per-tool counters collected by `usingDiagnostics()`; `undefined` without it. */
  readonly metrics: DiagnosticsMetrics | undefined;
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
  /** The agents registered with `addAgents(...)`, in registration order. */
  readonly agents: readonly DeclaredAgentInfo[];
  /**
   * Creates an agent whose tool calls run through this pipeline: from options, from a class
   * declared with `@Agent` (registered or not), or by the name of an agent registered with
   * `addAgents`. The chat client comes from `overrides.chatClient` / `options.chatClient`, else
   * the builder's `usingChatClient(client)`. An agent's `resilience` replaces the factory's for
   * its tool calls (a second pipeline; every other plugin is shared).
   */
  createAgent(options: AgentOptions): Agent;
  createAgent(agent: DeclaredAgentClass | string, overrides?: AgentOverrides): Agent;
}

/** Everything the builder hands the factory. @internal */
export interface AgentFactoryParts {
  readonly invoker: ToolInvoker;
  readonly plugins: readonly AgentFrameworkPlugin[];
  readonly diagnostics: readonly BuildDiagnostic[];
  readonly pipelineParts: PipelineParts;
  readonly layers: readonly PluginLayer[];
  readonly agents: readonly DeclaredAgentInfo[];
  readonly chatClient: ChatClient | undefined;
}

/** @internal */
export function createAgentFactory(parts: AgentFactoryParts): AgentFactory {
  const { invoker, plugins, diagnostics, agents } = parts;
  const style: ToolOutcomeStyle = plugins.find((p) => p.outcomeStyle !== undefined)?.outcomeStyle ?? "envelope";
  const redactors = plugins.filter((p) => typeof p.redact === "function");
  const pluginTools = plugins.flatMap((p) => (Array.isArray(p.tools) ? p.tools : []));
  const pipeline: PipelineStage[] = [
    ...[...plugins].reverse().map((p) => ({ name: p.name, description: p.describe?.() ?? p.name })),
    { name: "tool-middleware", description: "tool-scoped middleware from @AgentFunction({ middleware })" },
    { name: "tool", description: "the tool body" },
  ];
  const redact = <T>(value: T): T => redactors.reduce<unknown>((v, p) => p.redact!(v), value) as T;
  const formatOutcome = (outcome: ToolOutcome): string => formatToolOutcome(outcome, { style });
  // What plugins hear of every run: the telemetry subscriber (`telemetry`, composed), and the
  // run's events (`observeRun`), and the deprecated ways of plugins without one (`wrapRun`, `wrapChatClient`).
  const telemetry = pluginTelemetry(parts.pipelineParts, plugins);
  const legacy = plugins.filter((p) => typeof p.telemetry !== "function");
  const runObservers = (agent: string) => pluginRunObservers(plugins, agent);
  const runWrappers = legacy.filter((p) => typeof p.wrapRun === "function");
  const wrapRun =
    runWrappers.length === 0
      ? undefined
      : (run: RunInfo, body: () => Promise<AgentRunResult>): Promise<AgentRunResult> =>
          runWrappers.reduce<() => Promise<AgentRunResult>>((inner, p) => () => p.wrapRun!(run, inner), body)();
  // Every plugin's call gate (the injection policy), asked by the loop before each round.
  const callGates = plugins
    .filter((p) => typeof p.gateCalls === "function")
    .map((p) => (request: CallGateRequest) => p.gateCalls!(request));
  const clientWrappers = legacy.filter((p) => typeof p.wrapChatClient === "function");
  const wrapChatClient = (client: ChatClient): ChatClient =>
    clientWrappers.reduce((inner, p) => p.wrapChatClient!(inner), client);
  // Agents' pipelines are cached: one set of layers per resilience options object (agents created
  // from one declaration share its circuit breakers and bulkheads, as agents on the factory's own
  // pipeline share the factory's), one invoker per set of layers and tool classes.
  const { pipelineParts } = parts;
  const definedTargets = pipelineParts.definedTools.map((t) => t.descriptor.target);
  const resilientLayers = new WeakMap<ResilienceOptions, readonly PluginLayer[]>();
  const composed = new WeakMap<readonly PluginLayer[], Map<string, ToolInvoker>>();
  const compose = (request: {
    readonly classes?: readonly ToolClass[];
    readonly resilience?: ResilienceOptions;
  }): ToolInvoker => {
    let layers = parts.layers;
    if (request.resilience !== undefined) {
      let swapped = resilientLayers.get(request.resilience);
      if (!swapped)
        resilientLayers.set(
          request.resilience,
          (swapped = layersWithResilience(pipelineParts, plugins, parts.layers, request.resilience)),
        );
      layers = swapped;
    }
    if (layers === parts.layers && request.classes === undefined) return invoker;
    // A selection names tool classes; a defined tool's class is its own (see defineTool).
    const selected = new Set(request.classes ?? [...pipelineParts.classes, ...definedTargets]);
    const classes = pipelineParts.classes.filter((c) => selected.has(c));
    const definedTools = pipelineParts.definedTools.filter((t) => selected.has(t.descriptor.target));
    const key = [
      ...classes.map((c) => pipelineParts.classes.indexOf(c)),
      ...definedTools.map((t) => `d${pipelineParts.definedTools.indexOf(t)}`),
    ].join(",");
    let byClasses = composed.get(layers);
    if (!byClasses) composed.set(layers, (byClasses = new Map()));
    let found = byClasses.get(key);
    if (!found) byClasses.set(key, (found = composeInvoker({ ...pipelineParts, classes, definedTools }, layers)));
    return found;
  };
  const definitionOf = (agent: DeclaredAgentClass | string): AgentDefinition => {
    if (typeof agent === "function") return requireDeclaredAgent(agent, "factory.createAgent");
    const found = agents.find((a) => a.name === agent);
    if (!found) {
      const known = agents.map((a) => `'${a.name}'`).join(", ");
      throw new TypeError(
        `factory.createAgent: no agent is named '${agent}' (${known ? `registered: ${known}` : "none registered; add declared agents with addAgents(SupportAgent)"}).`,
      );
    }
    return found.definition;
  };
  const create = (agent: AgentOptions | DeclaredAgentClass | string, overrides?: AgentOverrides): Agent => {
    let options: AgentOptions;
    if (typeof agent === "function" || typeof agent === "string") options = { ...definitionOf(agent), ...overrides };
    else if (overrides !== undefined)
      throw new TypeError(
        "factory.createAgent: overrides go with a declared agent (a class or a name); with options, put them in the options.",
      );
    else options = agent;
    // Own properties only: a polluted Object.prototype supplies no chat client (nor any option).
    const chatClient =
      (typeof options === "object" && options !== null && Object.hasOwn(options, "chatClient")
        ? options.chatClient
        : undefined) ?? parts.chatClient;
    if (chatClient === undefined) {
      throw new TypeError(
        `factory.createAgent: agent '${String(options?.name)}' has no chat client: pass { chatClient } or set one for the factory with usingChatClient(client).`,
      );
    }
    // The agent's pipelines are made here, before the agent: its own `resilience` swaps the
    // resilience layer; its tool selection composes a pipeline over those tool classes.
    const resolved = resolveAgentOptions({ ...options, chatClient });
    const resilience = resolved.resilience === undefined ? {} : { resilience: resolved.resilience };
    const pipeline = resolved.resilience === undefined ? invoker : compose(resilience);
    // The tools plugins publish (read_artifact) are offered by every agent, whatever it selects.
    const selection =
      pluginTools.length > 0 && namesTools(resolved)
        ? { ...resolved, functions: [...(resolved.functions ?? []), ...pluginTools] }
        : resolved;
    const offered = offeredInvoker(resolved.name, pipeline, selection, (classes) =>
      compose({ ...resilience, classes }),
    );
    const deps = {
      invoker: pipeline,
      offered,
      redact,
      formatOutcome,
      runObservers: runObservers(resolved.name),
      wrapChatClient,
      callGates,
      ...(telemetry === undefined ? {} : { telemetry }),
    };
    return agentOf(wrapRun === undefined ? deps : { ...deps, wrapRun }, resolved);
  };
  return {
    tools: invoker,
    diagnostics,
    metrics: metricsOf(plugins),
    plugins,
    pipeline,
    describePipeline: () =>
      pipeline.map((stage, i) => `${i + 1}. ${stage.description}${i === 0 ? "  (outermost)" : ""}`).join("\n"),
    formatOutcome,
    redact,
    agents,
    createAgent: create,
  };
}
