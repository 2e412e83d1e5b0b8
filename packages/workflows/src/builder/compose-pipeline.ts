import {
  type AgentFunctionDescriptor,
  type ArgumentLimits,
  createToolInvoker,
  type DefinedTool,
  type OutcomeObserver,
  type ToolClass,
  type ToolInvoker,
  type ToolMiddleware,
} from "@needlework/core";
import { registerCallProbes } from "@needlework/core/internal";
import type { DependencyContainer } from "tsyringe";
import { composeTelemetry, type RunTelemetry } from "@needlework/otel";
import type { AgentFrameworkPlugin, PluginContext } from "../plugin.js";
import { hasTrait, PLUGIN_TRAITS } from "../plugin.js";
import { resiliencePlugin, type ResilienceOptions } from "../resilience/index.js";

/** What every invoker of one factory shares. @internal */
export interface PipelineParts {
  readonly container: DependencyContainer;
  readonly classes: readonly ToolClass[];
  /** Tools added with `addTools(...)` (defineTool, a connected server's). */
  readonly definedTools: readonly DefinedTool[];
  readonly tools: readonly AgentFunctionDescriptor[];
  readonly limits: ArgumentLimits | undefined;
}

/** What one plugin contributes to the pipeline. @internal */
export interface PluginLayer {
  readonly middleware: ToolMiddleware | undefined;
  readonly observer: OutcomeObserver | undefined;
}

function layerOf(plugin: AgentFrameworkPlugin, context: PluginContext): PluginLayer {
  return { middleware: plugin.createMiddleware?.(context), observer: plugin.createObserver?.(context) };
}

/** The plugins' telemetry subscribers as one (`telemetry`, each set up with its context), if any. @internal */
export function pluginTelemetry(
  parts: PipelineParts,
  plugins: readonly AgentFrameworkPlugin[],
): RunTelemetry | undefined {
  const { container, tools } = parts;
  return composeTelemetry(plugins.map((p, position) => p.telemetry?.({ container, tools, plugins, position })));
}

/** The plugins' layers, in registration order (first nearest the tool body); created outermost first. @internal */
export function createLayers(parts: PipelineParts, plugins: readonly AgentFrameworkPlugin[]): PluginLayer[] {
  const layers: PluginLayer[] = [];
  for (let position = plugins.length - 1; position >= 0; position--) {
    layers[position] = layerOf(plugins[position]!, {
      container: parts.container,
      tools: parts.tools,
      plugins,
      position,
    });
  }
  return layers;
}

/** An invoker over the layers: the last registered is outermost. @internal */
export function composeInvoker(parts: PipelineParts, layers: readonly PluginLayer[]): ToolInvoker {
  const middleware: ToolMiddleware[] = [];
  const observers: OutcomeObserver[] = [];
  for (let i = layers.length - 1; i >= 0; i--) {
    const { middleware: layer, observer } = layers[i]!;
    if (layer) middleware.push(layer);
    if (observer) observers.push(observer);
  }
  const invoker = createToolInvoker(parts.container, {
    functions: parts.classes,
    tools: parts.definedTools,
    middleware,
    observers,
    ...(parts.limits ? { limits: parts.limits } : {}),
  });
  // A gate's middleware (the injection policy) answers adapters that ask before they run a call.
  registerCallProbes(invoker, middleware);
  return invoker;
}

/**
 * The factory's layers with its resilience replaced by `resiliencePlugin(options)`, in the same
 * position (innermost when the factory has none). Only the resilience layer is new: every other
 * plugin keeps its layer, and so its state. A factory that registered resilience twice (NW005)
 * gets one layer here: an agent's options replace, they never stack.
 * @internal
 */
export function layersWithResilience(
  parts: PipelineParts,
  plugins: readonly AgentFrameworkPlugin[],
  layers: readonly PluginLayer[],
  options: ResilienceOptions,
): PluginLayer[] {
  const replacement = resiliencePlugin(options);
  const retries = (p: AgentFrameworkPlugin) => hasTrait(p, PLUGIN_TRAITS.retries);
  const first = plugins.findIndex(retries);
  const swapped: AgentFrameworkPlugin[] = [];
  const swappedLayers: (PluginLayer | undefined)[] = [];
  if (first === -1) {
    swapped.push(replacement);
    swappedLayers.push(undefined);
  }
  plugins.forEach((plugin, i) => {
    if (!retries(plugin)) {
      swapped.push(plugin);
      swappedLayers.push(layers[i]);
    } else if (i === first) {
      swapped.push(replacement);
      swappedLayers.push(undefined);
    }
  });
  const position = swapped.indexOf(replacement);
  swappedLayers[position] = layerOf(replacement, {
    container: parts.container,
    tools: parts.tools,
    plugins: swapped,
    position,
  });
  return swappedLayers as PluginLayer[];
}
