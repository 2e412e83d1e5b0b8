import { ownOptions } from "@needlework/core/kit";
import {
  type AgentFunctionGroupInfo,
  agentFunctionRegistry,
  type ArgumentLimits,
  type ToolClass,
  type ToolMiddleware,
  toolDefinitionOf,
  collectAgentFunctions,
  type DefinedTool,
  isDefinedTool,
} from "@needlework/core";
import { composeMiddleware } from "@needlework/core/internal";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import type { ChatClient } from "@needlework/core";
import { type DeclaredAgentClass, requireDeclaredAgent } from "../agent/declared-agent.js";
import type { AgentFrameworkPlugin, BuildDiagnostic, PluginContext } from "../plugin.js";
import { diagnosticsPlugin, type DiagnosticsOptions } from "../diagnostics/index.js";
import { resiliencePlugin, type ResilienceOptions } from "../resilience/index.js";
import { redactionPlugin, type RedactionOptions, truncationPlugin, type TruncationOptions } from "../shaping/index.js";
import { toolResultPlugin, type ToolResultMiddlewareOptions } from "../tool-result/index.js";
import { type AgentFactory, createAgentFactory } from "./agent-factory.js";
import { declaredAgents, diagnoseAgents } from "./agent-diagnostics.js";
import { composeInvoker, createLayers, type PipelineParts } from "./compose-pipeline.js";
import { diagnoseComposition } from "./build-diagnostics.js";
import { diagnoseKeyReads } from "./key-read-diagnostics.js";
import { diagnoseNameCollisions, remoteTools } from "./tool-name-collisions.js";
import { diagnoseInjection } from "../injection/injection-diagnostics.js";
import { type InjectionPolicyOptions, injectionPolicyPlugin } from "../injection/injection-policy.plugin.js";
import { AgentFrameworkBuildError } from "./build-error.js";
import { artifactsPlugin } from "../artifacts/artifacts.plugin.js";
import type { ArtifactsOptions } from "../artifacts/artifacts.options.js";

/** Options of {@link AgentFrameworkBuilder.buildAgentFactory}. */
export interface BuildAgentFactoryOptions {
  /** Turn warnings into a build error. Default `false`. */
  readonly strict?: boolean;
  /** Argument payload limits (default 1 MB and 64 levels). */
  readonly limits?: ArgumentLimits;
  /**
   * Where the build's warnings are printed, once per build: `console.warn` by default (each line names
   * its id, e.g. `NW001`, and the fix); a function of your own receives each line; `false` prints
   * nothing (the findings stay on `factory.diagnostics`). Info findings are never printed.
   */
  readonly printDiagnostics?: boolean | ((line: string) => void);
}

/**
 * The fluent builder returned by {@link usingAgentFramework}. Each `using…()` call wraps everything
 * registered before it: the first sits nearest the tool body, the last is outermost.
 */
export class AgentFrameworkBuilder {
  private readonly classes: ToolClass[] = [];
  private readonly definedTools: DefinedTool[] = [];
  private readonly plugins: AgentFrameworkPlugin[] = [];
  private readonly agents: DeclaredAgentClass[] = [];
  private chatClient: ChatClient | undefined;
  private middlewareCount = 0;

  constructor(private readonly container: DependencyContainer) {}

  /** Offers the tools of these decorated classes. */
  addAgentFunctions(...classes: ToolClass[]): this {
    this.classes.push(...classes);
    return this;
  }

  /** Offers every class in `agentFunctionRegistry` (optionally filtered), as Needlr's generated list. */
  addAgentFunctionsFromRegistry(filter?: (group: AgentFunctionGroupInfo) => boolean): this {
    this.classes.push(...agentFunctionRegistry.list(filter).map((g) => g.target));
    return this;
  }

  /**
   * Offers tools without a class: those made by `defineTool({...})` and a connected server's
   * `tools` (`connectMcpServer(...)` from `@needlework/mcp`), singly or as lists. Their calls go
   * through the same pipeline as decorated methods'. Two tools published under one name are refused
   * by `buildAgentFactory()` (NW013).
   *
   * @example
   * ```ts
   * const shop = await connectMcpServer("shop", { url: "http://127.0.0.1:5000/mcp/shop_tools" });
   * usingAgentFramework(container).addAgentFunctions(OrderTools).addTools(shop.tools, ping).buildAgentFactory();
   * ```
   */
  addTools(...tools: (DefinedTool | readonly DefinedTool[])[]): this {
    for (const entry of tools.flat()) {
      if (!isDefinedTool(entry)) {
        throw new TypeError(
          "addTools: pass tools made by defineTool({...}) or a connected server's `tools` (for a decorated class, use addAgentFunctions).",
        );
      }
      if (!this.definedTools.includes(entry)) this.definedTools.push(entry);
    }
    return this;
  }

  /**
   * Registers agents declared with `@Agent`: the build checks them (two agents with one name,
   * NW008; a function group or tool class that matches nothing, NW007) and the factory lists them
   * (`factory.agents`) and builds them by name (`factory.createAgent("support")`).
   */
  addAgents(...agents: DeclaredAgentClass[]): this {
    for (const agent of agents) requireDeclaredAgent(agent, "addAgents");
    this.agents.push(...agents);
    return this;
  }

  /**
   * The chat client of every agent the factory creates, unless `createAgent` is given one
   * (`factory.createAgent(SupportAgent, { chatClient })` wins).
   */
  usingChatClient(chatClient: ChatClient): this {
    if (typeof chatClient?.complete !== "function") {
      throw new TypeError(
        "usingChatClient: pass a ChatClient (an object with complete(request)), e.g. an OpenAIChatClient or a ScriptedChatClient.",
      );
    }
    this.chatClient = chatClient;
    return this;
  }

  /** Retries, timeouts, a per-tool circuit breaker and a bulkhead. Register it first (innermost). */
  usingResilience(options?: ResilienceOptions): this {
    return this.usingPlugin(resiliencePlugin(options));
  }

  /** Catches tool failures into structured outcomes the model can recover from. Register after resilience. */
  usingToolResultMiddleware(options?: ToolResultMiddlewareOptions): this {
    return this.usingPlugin(toolResultPlugin(options));
  }

  /** Token-aware, structure-preserving truncation of results. */
  usingTruncation(options?: TruncationOptions): this {
    return this.usingPlugin(truncationPlugin(options));
  }

  /** Scrubs secrets and PII from everything the model reads. Register it last among shaping plugins. */
  usingRedaction(options?: RedactionOptions): this {
    return this.usingPlugin(redactionPlugin(options));
  }

  /**
   * Huge results as artifacts: a result whose JSON passes `offloadBytes` (default 64 KB) is stored in
   * `store`, scoped to its run and redacted first, and the model reads a preview within
   * `previewTokens` (default 500) beside `artifact: { id, bytes, items, schema }`. The built-in tool
   * `read_artifact({ id, path?, offset, limit })` is published with the others and pages through it,
   * each page within the budget of results (`pageTokens`, default the truncation budget). Register
   * it after the result middleware and redaction (NW013).
   *
   * @example
   * ```ts
   * usingAgentFramework().addAgentFunctions(ReportTools)
   *   .usingToolResultMiddleware().usingRedaction()
   *   .usingArtifacts({ store: new InMemoryArtifactStore() });
   * ```
   */
  usingArtifacts(options: ArtifactsOptions): this {
    return this.usingPlugin(artifactsPlugin(options));
  }

  /**
   * Records every call (bounded), counts failures per tool (envelopes included), logs, and traces
   * with OpenTelemetry; read it as `factory.metrics`. Register it last (outermost), after redaction.
   */
  usingDiagnostics(options?: DiagnosticsOptions): this {
    return this.usingPlugin(diagnosticsPlugin(options));
  }

  /**
   * The Rule of Two at the tool layer: once a tool declared `reads: "untrusted"` returned (an
   * outcome marked `provenance: "untrusted"`), every later call with effects of the run needs a
   * person's approval (`"approve"`, the default), is refused with `UNTRUSTED_CONTEXT` (`"deny"`),
   * needs approval only when an argument value came from untrusted content (`"arguments"`), or
   * runs (`"allow"`). Holds on every start of every agent (resumes and journal replays included);
   * calls without a loop (MCP, AI SDK tools) are gated per `runId`. See docs/prompt-injection.md.
   *
   * @example
   * ```ts
   * usingAgentFramework().addAgentFunctions(MailTools, BankTools).usingInjectionPolicy({ afterUntrusted: "arguments" });
   * ```
   */
  usingInjectionPolicy(options?: InjectionPolicyOptions): this {
    return this.usingPlugin(injectionPolicyPlugin(options));
  }

  /** Adds wrap-style middleware (or `hooks(...)`); within one call the first entry is outermost. */
  usingMiddleware(...middleware: ToolMiddleware[]): this {
    if (middleware.length === 0 || !middleware.every((m) => typeof m === "function")) {
      throw new TypeError(
        "usingMiddleware: pass one or more middleware functions ((call, next) => Promise<unknown>) or hooks({...}).",
      );
    }
    const name = ++this.middlewareCount === 1 ? "middleware" : `middleware-${this.middlewareCount}`;
    const layers = [...middleware];
    return this.usingPlugin({
      name,
      describe: () => `${name}(${layers.length} layer${layers.length === 1 ? "" : "s"})`,
      // First entry outermost, like tool-scoped middleware (core's composeMiddleware).
      createMiddleware: () => (layers.length === 1 ? layers[0] : (call, next) => composeMiddleware(layers, next)(call)),
    });
  }

  /** Adds a plugin; it wraps everything registered before it. */
  usingPlugin(plugin: AgentFrameworkPlugin): this {
    if (typeof plugin !== "object" || plugin === null || typeof plugin.name !== "string" || plugin.name === "") {
      throw new TypeError(
        "usingPlugin: a plugin is an object with a non-empty `name` and optional createMiddleware/createObserver/diagnose.",
      );
    }
    this.plugins.push(plugin);
    return this;
  }

  /**
   * Composes the pipeline, checks it (see `factory.diagnostics`, ids NW001...), and returns the factory.
   * Throws when a diagnostic is an error, or any warning under `strict`.
   */
  buildAgentFactory(given: BuildAgentFactoryOptions = {}): AgentFactory {
    // Own properties only: a polluted Object.prototype turns on no `strict` and sets no `limits`.
    const options = ownOptions(given, ["strict", "limits", "printDiagnostics"]);
    if (this.classes.length === 0 && this.definedTools.length === 0) {
      throw new AgentFrameworkBuildError(
        "No agent functions were added: call addAgentFunctions(MyTools), addAgentFunctionsFromRegistry() or addTools(...) before buildAgentFactory().",
        [],
      );
    }
    const plugins = [...this.plugins];
    // Tools plugins publish (artifacts: read_artifact) go with the factory's own.
    const classes = [...this.classes, ...plugins.flatMap((p) => (Array.isArray(p.tools) ? p.tools : []))];
    const declared = collectAgentFunctions(classes);
    const collisions = diagnoseNameCollisions(declared, this.definedTools);
    const tools = [...declared, ...this.definedTools.map((t) => t.descriptor)];
    const contexts: PluginContext[] = plugins.map((_, position) => ({
      container: this.container,
      tools,
      plugins,
      position,
    }));
    const agents = declaredAgents(this.agents);
    const diagnostics = [
      ...collisions,
      ...diagnoseComposition(tools.map(toolDefinitionOf), contexts, remoteTools(tools)),
      ...diagnoseAgents(agents, tools),
      ...diagnoseInjection(tools, agents, plugins),
      ...diagnoseKeyReads(tools),
    ];
    const failing = diagnostics.filter(
      (d) => d.severity === "error" || (options.strict === true && d.severity === "warning"),
    );
    if (failing.length > 0) {
      throw new AgentFrameworkBuildError(
        `buildAgentFactory failed:\n${failing.map((d) => `  ${d.id} ${d.message}`).join("\n")}`,
        diagnostics,
      );
    }
    printWarnings(diagnostics, options.printDiagnostics ?? true);
    const pipelineParts: PipelineParts = {
      container: this.container,
      classes,
      definedTools: [...this.definedTools],
      tools,
      limits: options.limits === undefined ? undefined : ownOptions(options.limits, ["maxBytes", "maxDepth"]),
    };
    const layers = createLayers(pipelineParts, plugins);
    const invoker = composeInvoker(pipelineParts, layers);
    return createAgentFactory({
      invoker,
      plugins,
      diagnostics,
      pipelineParts,
      layers,
      agents,
      chatClient: this.chatClient,
    });
  }
}

/** Prints each warning once, as one line naming its id, unless the user turned printing off. */
function printWarnings(
  diagnostics: readonly BuildDiagnostic[],
  print: boolean | ((line: string) => void) | undefined,
): void {
  if (print === false) return;
  const write = typeof print === "function" ? print : (line: string) => console.warn(line);
  for (const d of diagnostics) {
    if (d.severity !== "warning") continue;
    write(
      `needlework ${d.id} (warning): ${d.message} [see ${DIAGNOSTICS_DOCS}; silence with buildAgentFactory({ printDiagnostics: false })]`,
    );
  }
}

/** The page on build diagnostics, as shipped inside the installed package (there is no public site). */
const DIAGNOSTICS_DOCS = "node_modules/@needlework/workflows/docs/build-diagnostics.md";

/**
 * Starts the fluent bootstrap of needlework over a tsyringe container (a child of tsyringe's root
 * container when omitted).
 *
 * @example
 * ```ts
 * const factory = usingAgentFramework(container)
 *   .addAgentFunctions(OrderTools)
 *   .usingResilience()            // innermost: retries first
 *   .usingToolResultMiddleware()  // outermost: the model sees the final failure
 *   .buildAgentFactory();
 * await factory.tools.invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
 * ```
 */
export function usingAgentFramework(container?: DependencyContainer): AgentFrameworkBuilder {
  return new AgentFrameworkBuilder(container ?? rootContainer.createChildContainer());
}
