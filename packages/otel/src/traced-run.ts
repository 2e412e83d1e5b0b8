// The input contract of the span code: the few fields it reads of a run's start, of its result and of
// the pipeline, as structural types of this package's own; a run's events are core's `AgentEvent`
// (`@needlework/core/events`). `@needlework/workflows` passes its `RunInfo` and `AgentRunResult` as they
// are (the compiler checks the fit where workflows calls in, and a type test in workflows holds it), so
// this package never depends on workflows.
import type { ChatClient } from "@needlework/core";

/**
 * What the `invoke_agent` span reads of a run's result: workflows' `AgentRunResult` fits as it is.
 *
 * @example
 * ```ts
 * const result: TracedRunResult = await agent.run("Where is ORD-1?");
 * ```
 */
export interface TracedRunResult {
  readonly runId: string;
  /** `completed`, `completed_with_failures` and `awaiting_approval` are settled; any other marks the span ERROR. */
  readonly status: string;
  readonly iterations: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly health: {
    readonly tools_ok: number;
    readonly tools_failed: number;
    readonly tools_not_called: number;
    readonly blocking_failure: boolean;
  };
  /** Why a run stopped (escalated, dead-lettered, ...): the span's status message. */
  readonly reason?: string;
}

/**
 * What the `invoke_agent` span learns as a run starts: workflows' `RunInfo` (a plugin's `wrapRun`) fits.
 *
 * @example
 * ```ts
 * const run: TracedRunStart = { agent: "crm-sync", resumed: false, chatClient };
 * ```
 */
export interface TracedRunStart {
  /** The agent's name. */
  readonly agent: string;
  /** True when the run resumes a paused or crashed one. */
  readonly resumed: boolean;
  /** The agent's chat client, as given: it names the provider and model of the span. */
  readonly chatClient?: ChatClient;
}

/**
 * The run a subscriber observes: workflows' `RunObserved` (a plugin's `observeRun`) fits.
 *
 * @example
 * ```ts
 * const subscriber = otel.observeRun({ agent: "crm-sync", runId: "run_1" });
 * ```
 */
export interface TracedRun {
  readonly agent: string;
  readonly runId: string;
}

/**
 * The fields the tracer reads of a run's events, as a structural shape (every `AgentEvent` has them).
 * `replayed` is set on the events a resumed run replays from its journal; `result` is the `run-end`
 * event's.
 *
 * @deprecated The tracer reads `AgentEvent` (`import type { AgentEvent } from "@needlework/core/events"`);
 * `observeRun`'s subscriber still accepts this shape until the next major version.
 *
 * @example
 * ```ts
 * const end: TracedRunEvent = { type: "run-end", result };
 * ```
 */
export interface TracedRunEvent {
  readonly type: string;
  readonly replayed?: true;
  readonly result?: TracedRunResult;
}

/**
 * What the tracer reads of the pipeline a plugin is set up in: workflows' `PluginContext` fits. The
 * plugins that `redact` (the redaction plugin) scrub every attribute and message before it is exported.
 *
 * @example
 * ```ts
 * const context: TracedPipeline = { plugins: [{ name: "redaction", redact: (value) => value }] };
 * ```
 */
export interface TracedPipeline {
  readonly plugins: readonly { readonly name: string; redact?(value: unknown): unknown }[];
}
