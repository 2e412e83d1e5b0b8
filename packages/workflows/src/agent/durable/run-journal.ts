import type { ChatAssistantMessage, ChatUsage, JsonValue, ToolOutcomeStatus } from "@needlework/core";
import type { DeadLetterQueue } from "./dead-letter-queue.js";
import type { ResumedCheckpointStore } from "../approvals/claims.js";

/**
 * How a run began: enough to rebuild its first messages on another instance.
 *
 * @example
 * ```ts
 * const startedAt = new Date().toISOString();
 * const start = { runId: "run_1", agent: "crm-sync", instructions: "Sync contacts.", input: "Sync c1", startedAt };
 * await journal.runStarted(start);
 * ```
 */
export interface JournaledRunStart {
  readonly runId: string;
  readonly agent: string;
  /** The system prompt the run started with (a resumed run keeps it). */
  readonly instructions: string;
  /** The user's message. */
  readonly input: string;
  /** ISO 8601. */
  readonly startedAt: string;
}

/**
 * One model turn as the loop used it: the assistant message (tool call ids filled in) and its usage.
 *
 * @example
 * ```ts
 * await journal.turn("run_1", { index: 0, message: { role: "assistant", content: "Done." } });
 * ```
 */
export interface JournaledTurn {
  /** 0 for the run's first model turn. */
  readonly index: number;
  readonly message: ChatAssistantMessage;
  readonly usage?: ChatUsage;
  readonly finishReason?: string;
}

/**
 * A tool call as it started: recorded (durably) before the tool body runs.
 *
 * @example
 * ```ts
 * const call = { callId: "c1", tool: "crm_upsert", arguments: { id: "c1" }, idempotencyKey: "run_1:c1" };
 * await journal.callStarted("run_1", call);
 * ```
 */
export interface JournaledCallStart {
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them (an object or the raw JSON string). */
  readonly arguments: JsonValue;
  /** What the tool saw as `ctx.idempotencyKey`. */
  readonly idempotencyKey: string;
}

/**
 * A tool outcome as it settled: a JSON snapshot (never the exception) and the text the model read.
 *
 * @example
 * ```ts
 * const metadata = { tool: "crm_upsert", callId: "c1", attempts: 1, latencyMs: 3 };
 * const outcome = { status: "ok", retriable: false, data: { id: "c1" }, metadata } as const;
 * await journal.outcome("run_1", { callId: "c1", outcome, formatted: formatToolOutcome(outcome) });
 * ```
 */
export interface JournaledOutcome {
  readonly callId: string;
  readonly outcome: {
    readonly status: ToolOutcomeStatus;
    readonly retriable: boolean;
    readonly errorCode?: string;
    readonly message?: string;
    readonly suggestion?: string;
    readonly data?: JsonValue;
    readonly metadata: { readonly [key: string]: JsonValue };
  };
  /** The outcome exactly as formatted for the model. */
  readonly formatted: string;
}

/**
 * How a run ended: its status and the result `run()` returned, as JSON.
 *
 * @example
 * ```ts
 * const endedAt = new Date().toISOString();
 * await journal.runEnded("run_1", { status: "completed", endedAt, result: toJsonSafe(result) });
 * ```
 */
export interface JournaledRunEnd {
  readonly status: string;
  /** ISO 8601. */
  readonly endedAt: string;
  readonly result: JsonValue;
}

/**
 * A call of a journaled run: its start and, once it settled, its outcome.
 *
 * @example
 * ```ts
 * const inFlight = run.calls.filter((c) => c.outcome === undefined);
 * ```
 */
export interface JournaledCall extends JournaledCallStart {
  readonly outcome?: JournaledOutcome;
}

/**
 * A run read back from a journal.
 *
 * @example
 * ```ts
 * const run = await store.journal.read("run_1");
 * if (run && !run.end) await agent.resumeRun(run.runId);
 * ```
 */
export interface JournaledRun extends JournaledRunStart {
  /** In turn order. */
  readonly turns: readonly JournaledTurn[];
  /** In the order they started. */
  readonly calls: readonly JournaledCall[];
  readonly end?: JournaledRunEnd;
}

/**
 * Where a run's progress is written as it happens, so another instance can resume the run after
 * its process died. Every method must be durable when its promise resolves (one transaction per
 * record); records of one run arrive in order.
 *
 * @example
 * ```ts
 * const store = new FileRunStore("/var/lib/crm");
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export interface RunJournal {
  /** Records a new run; `false` (and nothing written) when a run with this id exists. */
  runStarted(start: JournaledRunStart): Promise<boolean>;
  turn(runId: string, turn: JournaledTurn): Promise<void>;
  callStarted(runId: string, call: JournaledCallStart): Promise<void>;
  outcome(runId: string, outcome: JournaledOutcome): Promise<void>;
  runEnded(runId: string, end: JournaledRunEnd): Promise<void>;
  /** The run, or `undefined` when this journal never saw it. */
  read(runId: string): Promise<JournaledRun | undefined>;
}

/**
 * Everything an agent keeps durably: the run journal, dead letters and resumed-checkpoint claims.
 * `createAgent({ store })` uses all three (an explicit `deadLetters` or `resumedCheckpoints`
 * option wins).
 *
 * @example
 * ```ts
 * const store: AgentStore = new InMemoryRunStore();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export interface AgentStore {
  readonly journal: RunJournal;
  readonly deadLetters: DeadLetterQueue;
  readonly resumedCheckpoints: ResumedCheckpointStore;
}
