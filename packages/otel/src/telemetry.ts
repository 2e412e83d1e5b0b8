// The telemetry events of a run and the one subscriber interface that hears them (modelled on the AI
// SDK's `Telemetry`: start/end callbacks, and context runners so a subscriber can make its span the
// active parent of the work it stands for). Structural types of this package's own: workflows emits
// them, and this package never depends on workflows.
import type { ChatClient, ChatResponse, ToolOutcome, ToolRetryReport } from "@needlework/core";
import type { TracedRunResult } from "./traced-run.js";

/**
 * A run started (or a paused or crashed one resumed): the `run-start` run event.
 *
 * @example
 * ```ts
 * const started: RunStartTelemetry = { runId: "run_1", agent: "crm-sync", resumed: false, chatClient };
 * ```
 */
export interface RunStartTelemetry {
  readonly runId: string;
  /** The agent's name. */
  readonly agent: string;
  /** True when the run resumes a paused or crashed one (its `run-start` is replayed from the journal). */
  readonly resumed: boolean;
  /** The agent's chat client, as given: it names the provider and model. */
  readonly chatClient?: ChatClient;
}

/**
 * A run ended with a result (the `run-end` run event; a replayed one too: each start of a run ends).
 *
 * @example
 * ```ts
 * const ended: RunEndTelemetry = { runId: result.runId, agent: "crm-sync", result };
 * ```
 */
export interface RunEndTelemetry {
  readonly runId: string;
  readonly agent: string;
  readonly result: TracedRunResult;
}

/**
 * A started run threw instead of ending (the model server failed, the lease was lost): it has no `run-end`.
 *
 * @example
 * ```ts
 * const failed: RunErrorTelemetry = { runId: "run_1", agent: "crm-sync", error };
 * ```
 */
export interface RunErrorTelemetry {
  readonly runId: string;
  readonly agent: string;
  /** The thrown value, for the subscriber's own use (a span's `exception` event); never shown to the model. */
  readonly error: unknown;
}

/**
 * A model call is about to be made (a replayed turn makes none). `runId` is absent for a call made
 * outside any run (a client wrapped by a deprecated `wrapChatClient`).
 *
 * @example
 * ```ts
 * const start: ModelCallStartTelemetry = { modelCallId: "run_1:turn:0", runId: "run_1", chatClient, streamed: false };
 * ```
 */
export interface ModelCallStartTelemetry {
  /** Pairs this start with its end and its context runner; unique while the call is in flight. */
  readonly modelCallId: string;
  readonly runId?: string;
  readonly chatClient: ChatClient;
  readonly streamed: boolean;
}

/**
 * A model call ended: `ok` with the response's usage, finish reason, model and id; `error` with the
 * thrown value (`cancelled` when the caller's signal aborted it); `abandoned` when the consumer
 * stopped reading a stream before its end.
 *
 * @example
 * ```ts
 * const end: ModelCallEndTelemetry = { modelCallId: "m1", status: "ok", response, toolCalls: 0 };
 * ```
 */
export type ModelCallEndTelemetry = { readonly modelCallId: string; readonly runId?: string } & (
  | { readonly status: "ok"; readonly response: Omit<ChatResponse, "message">; readonly toolCalls: number }
  | { readonly status: "error"; readonly error: unknown; readonly cancelled: boolean }
  | { readonly status: "abandoned" }
);

/**
 * A tool call is about to run through the pipeline (or, for one the pipeline never runs, an unknown
 * tool or invalid arguments, at once followed by its end). `runId` is empty for a direct call
 * (`factory.tools.invoke()` without one).
 *
 * @example
 * ```ts
 * const start: ToolExecutionStartTelemetry = { executionId: "x1", runId: "run_1", callId: "call_1", tool: "postNote" };
 * ```
 */
export interface ToolExecutionStartTelemetry {
  /** Pairs this start with its end, its retries and its context runner. */
  readonly executionId: string;
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly description?: string;
  /** The tool is declared `reads: "untrusted"`. */
  readonly untrustedReads?: boolean;
}

/**
 * A tool call ended: `returned` with the outcome it returned at the subscriber's place in the
 * pipeline (a value not yet an outcome is left out), or `thrown` with the value that left it
 * (`cancelled` when the caller aborted). `attempts` is 0 for a call the pipeline never ran.
 *
 * @example
 * ```ts
 * const end: ToolExecutionEndTelemetry = { executionId: "x1", runId: "run_1", callId: "call_1", tool: "postNote", attempts: 1, status: "returned", outcome };
 * ```
 */
export type ToolExecutionEndTelemetry = {
  readonly executionId: string;
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly attempts: number;
} & (
  | { readonly status: "returned"; readonly outcome: ToolOutcome | undefined; readonly exception?: unknown }
  | { readonly status: "thrown"; readonly error: unknown; readonly cancelled: boolean }
);

/**
 * A retry of a tool call was scheduled (the same report the run turns into its `tool-retry` event).
 *
 * @example
 * ```ts
 * const retry: ToolRetryTelemetry = { executionId: "x1", report };
 * ```
 */
export interface ToolRetryTelemetry {
  readonly executionId: string;
  readonly report: ToolRetryReport;
}

/**
 * The one subscriber of a run's telemetry events: tracing (`openTelemetry()`) and diagnostics
 * implement it, and a plugin hands one to the factory (workflows' `AgentFrameworkPlugin.telemetry`).
 * Every member is optional, and a callback that throws is ignored (observing never changes a run).
 * A start callback (`onRunStart`, `onModelCallStart`, `onToolExecutionStart`) may return a promise:
 * the work waits for it before it starts (the tracer is found once, lazily); what the others return
 * is ignored. The context runners run the work a start stands
 * for (the model call, the tool call) with the subscriber's context active, so spans the work makes
 * (the provider's HTTP span, the tool's database spans, a sub-agent's run) nest under the call's span;
 * a runner must return what `execute` returns, rejection included.
 *
 * @example
 * ```ts
 * const counter: RunTelemetry = { onToolExecutionEnd: (e) => metrics.count(e.tool, e.status) };
 * ```
 */
export interface RunTelemetry {
  onRunStart?(event: RunStartTelemetry): void | PromiseLike<void>;
  onRunEnd?(event: RunEndTelemetry): void;
  onRunError?(event: RunErrorTelemetry): void;
  onModelCallStart?(event: ModelCallStartTelemetry): void | PromiseLike<void>;
  onModelCallEnd?(event: ModelCallEndTelemetry): void;
  onToolExecutionStart?(event: ToolExecutionStartTelemetry): void | PromiseLike<void>;
  onToolExecutionEnd?(event: ToolExecutionEndTelemetry): void;
  onToolRetry?(event: ToolRetryTelemetry): void;
  /** Runs one model call (or one read of its stream) in the call's context. */
  executeModelCall?<T>(options: { readonly modelCallId: string; readonly execute: () => Promise<T> }): Promise<T>;
  /** Runs one tool call (the rest of the pipeline) in the call's context. */
  executeTool?<T>(options: { readonly executionId: string; readonly execute: () => Promise<T> }): Promise<T>;
}
