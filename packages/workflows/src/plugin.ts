import type {
  AgentFunctionDescriptor,
  ChatClient,
  OutcomeObserver,
  ToolClass,
  ToolMiddleware,
  ToolOutcomeStyle,
} from "@needlework/core";
import type { AgentEvent, AgentRunResult } from "@needlework/core/events";
import type { CallGateRequest, CallVerdict } from "./agent/loop/call-gate.types.js";
import type { DependencyContainer } from "tsyringe";
import type { RunTelemetry } from "@needlework/otel";

/** Severity of a build diagnostic; `strict` builds turn warnings into errors. */
export type BuildDiagnosticSeverity = "error" | "warning" | "info";

/**
 * A finding of `buildAgentFactory()` about the composition, with a stable id (`NW001`, ...).
 *
 * @example
 * ```ts
 * for (const d of factory.diagnostics) console.warn(`${d.id} ${d.message}`);
 * ```
 */
export interface BuildDiagnostic {
  readonly id: string;
  readonly severity: BuildDiagnosticSeverity;
  readonly message: string;
  readonly tool?: string;
  readonly plugin?: string;
  /** The declared agent concerned (NW007, NW008). */
  readonly agent?: string;
}

/** What a plugin sees when the factory is built. */
export interface PluginContext {
  /** The DI container tools are resolved from. */
  readonly container: DependencyContainer;
  /** Every tool the factory offers. */
  readonly tools: readonly AgentFunctionDescriptor[];
  /** All plugins, in registration order (first nearest the tool body). */
  readonly plugins: readonly AgentFrameworkPlugin[];
  /** This plugin's index in `plugins`. */
  readonly position: number;
}

/**
 * A `using...()` plugin. Each plugin's middleware wraps everything registered before it: the first
 * plugin sits nearest the tool body, the last is outermost. The built-in plugins use this same
 * interface; add your own with `usingPlugin(plugin)`.
 *
 * @example
 * ```ts
 * const audit: AgentFrameworkPlugin = {
 *   name: "audit",
 *   createMiddleware: () => async (call, next) => { log(call.name); return next(); },
 * };
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingPlugin(audit).buildAgentFactory();
 * ```
 */
export interface AgentFrameworkPlugin {
  /** A stable name: registering two plugins with one name is reported as NW005. */
  readonly name: string;
  /** One line describing the plugin and its options, for `factory.describePipeline()`. */
  describe?(): string;
  /** The middleware this plugin adds around everything registered before it. */
  createMiddleware?(context: PluginContext): ToolMiddleware | undefined;
  /** Sees every outcome the invoker returns, including `UNKNOWN_TOOL` and `INVALID_ARGUMENTS`. */
  createObserver?(context: PluginContext): OutcomeObserver | undefined;
  /** Build diagnostics about this plugin's place in the composition. */
  diagnose?(context: PluginContext): readonly BuildDiagnostic[];
  /**
   * Scrubs a value that leaves the pipeline by another way than the tool result (dead-letter
   * entries, diagnostics records, trace attributes). Implemented by the redaction plugin.
   */
  redact?(value: unknown): unknown;
  /**
   * The subscriber of every run's telemetry events, whichever of the six methods starts it: the
   * run's start, end and error, each model call's start and end (with `executeModelCall` to run the
   * call in its context). Tracing (`openTelemetry()`) and diagnostics subscribe here. A plugin with
   * one is not asked for `wrapRun` or `wrapChatClient`. Tool executions reach a
   * subscriber from its place in the pipeline: its middleware and observer emit them (`toolTelemetry`
   * of `@needlework/otel`), so direct calls (`factory.tools.invoke()`) are heard too.
   */
  telemetry?(context: PluginContext): RunTelemetry | undefined;
  /**
   * Wraps every run of the factory's agents, whichever of the six methods starts it (`run`,
   * `stream`, `resume`, `resumeStream`, `resumeRun`, `resumeRunStream`). Later plugins wrap earlier ones.
   * @deprecated Subscribe with `telemetry` (`onRunStart`, `onRunEnd`, `onRunError`); still called
   * for a plugin without it.
   */
  wrapRun?(run: RunInfo, body: () => Promise<AgentRunResult>): Promise<AgentRunResult>;
  /**
   * Reviews each round's calls before any of them runs, on every start of every agent of the
   * factory (the injection policy): one verdict per call, `run`, `approve` (the run pauses
   * `awaiting_approval`, the pending call says why) or `deny` (the call is answered with the
   * verdict's outcome). The request carries what entered the run's context, rebuilt from its
   * recorded turns, so resumed and replayed runs are gated alike.
   */
  gateCalls?(request: CallGateRequest): readonly CallVerdict[] | Promise<readonly CallVerdict[]>;
  /**
   * Wraps each agent's chat client.
   * @deprecated Subscribe with `telemetry` (`onModelCallStart`, `onModelCallEnd`, `executeModelCall`);
   * still called for a plugin without it.
   */
  wrapChatClient?(client: ChatClient): ChatClient;
  /**
   * Observes every run of the factory's agents, whichever of the six methods starts it: called as
   * each run starts, it returns a subscriber of that run's events (every {@link AgentEvent}, in order,
   * those a resumed run replays from its journal marked `replayed: true`), or nothing. A subscriber
   * that throws or rejects is ignored: observing never changes a run.
   */
  observeRun?(run: RunObserved): RunObserver | undefined;
  /**
   * Tool classes this plugin publishes with the factory's own (artifacts: `read_artifact`): every
   * agent of the factory offers them, whatever tools it selects.
   */
  readonly tools?: readonly ToolClass[];
  /**
   * Results whose JSON passes this many bytes are stored by this plugin, not shaped (artifacts):
   * truncation registered inside it leaves such a result's data whole for it.
   */
  readonly offloadBytes?: number;
  /** The style this plugin renders outcomes in for the model (the result middleware): the agents use it. */
  readonly outcomeStyle?: ToolOutcomeStyle;
  /**
   * What the plugin does to calls, in words the composition checks read (an open set): `"retries"`
   * (an agent's own `resilience` option replaces this plugin; NW001 checks the result middleware
   * sits outside it), `"shapes-values"` (NW006 checks it sits outside the result middleware).
   */
  readonly traits?: readonly string[];
}

/**
 * What {@link AgentFrameworkPlugin.observeRun} learns about a run as it starts.
 *
 * @example
 * ```ts
 * const observeRun = ({ agent, runId }: RunObserved) => (event: AgentEvent) => log.debug({ agent, runId, type: event.type });
 * ```
 */
export interface RunObserved {
  /** The agent's name. */
  readonly agent: string;
  readonly runId: string;
}

/**
 * A subscriber of one run's events (see {@link AgentFrameworkPlugin.observeRun}).
 *
 * @example
 * ```ts
 * const retries: RunObserver = (event) => { if (event.type === "tool-retry") metrics.count(event.tool); };
 * ```
 */
export type RunObserver = (event: AgentEvent) => void;

/**
 * What a plugin's `wrapRun` learns about the run it wraps.
 *
 * @example
 * ```ts
 * const wrapRun = (run: RunInfo, body: () => Promise<AgentRunResult>) => (console.log(run.agent), body());
 * ```
 */
export interface RunInfo {
  /** The agent's name. */
  readonly agent: string;
  /** False for `run`/`stream`; true for the four resuming starts. */
  readonly resumed: boolean;
  /** The agent's chat client, as given (before any plugin wrapped it). */
  readonly chatClient: ChatClient;
}

/**
 * The traits the built-in plugins declare (`AgentFrameworkPlugin.traits`) and the composition
 * checks read. A plugin of your own that retries or shapes values declares the same words.
 *
 * @example
 * ```ts
 * const myRetries: AgentFrameworkPlugin = { name: "my-retries", traits: [PLUGIN_TRAITS.retries], createMiddleware };
 * ```
 */
export const PLUGIN_TRAITS = Object.freeze({
  /** Retries calls: an agent's own `resilience` option replaces it; it belongs inside the result middleware (NW001). */
  retries: "retries",
  /** Rewrites tool values (truncation, redaction): it belongs outside the result middleware (NW006). */
  shapesValues: "shapes-values",
  /**
   * Makes OpenTelemetry spans for runs and calls (`usingDiagnostics({ tracer })`, `openTelemetry()`):
   * two such plugins give every run and call two spans (NW011).
   */
  tracesRuns: "traces-runs",
} as const);

/**
 * Whether `plugin` declares `trait` (see {@link PLUGIN_TRAITS}).
 *
 * @example
 * ```ts
 * const retrying = plugins.filter((p) => hasTrait(p, PLUGIN_TRAITS.retries));
 * ```
 * @internal
 */
export function hasTrait(plugin: AgentFrameworkPlugin, trait: string): boolean {
  return Array.isArray(plugin.traits) && plugin.traits.includes(trait);
}
