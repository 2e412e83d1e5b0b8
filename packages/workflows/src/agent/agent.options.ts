import type { AgentFunctionDescriptor, RoundPolicy, ToolInvoker, ToolOutcome } from "@needlework/core";
import type { ChatClient } from "./chat-client.js";
import type { DeadLetterQueue } from "./dead-letter-queue.js";
import type { FinalAnswerOptions } from "./final-answer.js";
import type { ResumedCheckpointStore } from "./resumed-checkpoint-store.js";
import type { SuccessClaimDetector } from "./success-claim.js";

/**
 * What the agent learns about a call when deciding whether it needs approval.
 *
 * @example
 * ```ts
 * const policy = (request: ApprovalRequest) => request.descriptor?.options.tags?.includes("destructive") === true;
 * ```
 */
export interface ApprovalRequest {
  readonly tool: string;
  readonly callId: string;
  /** Parsed when the model sent JSON text. */
  readonly arguments: unknown;
  /** The tool, when it exists. */
  readonly descriptor: AgentFunctionDescriptor | undefined;
}

/**
 * Decides per call whether a human must approve it, on top of `@AgentFunction({ requiresApproval })`.
 *
 * @example
 * ```ts
 * const approvalPolicy: ApprovalPolicy = ({ tool, arguments: args }) =>
 *   tool === "refund" && (args as { amount: number }).amount > 100;
 * ```
 */
export type ApprovalPolicy = (request: ApprovalRequest) => boolean | Promise<boolean>;

/**
 * A reviewer's decision on one call.
 *
 * @example
 * ```ts
 * const decision: ApprovalDecision = reviewer.ok ? "approved" : "denied";
 * ```
 */
export type ApprovalDecision = "approved" | "denied";

/**
 * Decisions by call id; every call the checkpoint lists with `requiresApproval` needs one.
 *
 * @example
 * ```ts
 * await agent.resume(checkpoint, { call_1_2: "approved", call_1_3: "denied" });
 * ```
 */
export type ApprovalDecisions = Readonly<Record<string, ApprovalDecision>>;

/**
 * What an agent needs from the factory. `factory.createAgent(options)` fills it in.
 *
 * @example
 * ```ts
 * const agent = createAgent({ invoker: factory.tools, redact: factory.redact }, { name, instructions, chatClient });
 * ```
 */
export interface AgentDeps {
  readonly invoker: ToolInvoker;
  /** Scrubs what leaves by another way than a tool result (dead-letter entries). */
  readonly redact?: (value: unknown) => unknown;
  /** Renders an outcome for the model; default `formatToolOutcome(outcome)`. */
  readonly formatOutcome?: (outcome: ToolOutcome) => string;
}

/**
 * Options of `factory.createAgent()`. Defaults: {@link AGENT_DEFAULTS}.
 *
 * @example
 * ```ts
 * factory.createAgent({ name: "crm-sync", instructions: "Sync contacts.", chatClient, roundPolicy: "all-or-nothing" });
 * ```
 */
export interface CreateAgentOptions {
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  readonly chatClient: ChatClient;
  /** Model turns per run (a correction turn counts). Default 10. */
  readonly maxIterations?: number;
  /** Tool calls of one round running at once. Default 8. */
  readonly maxConcurrency?: number;
  /** For tools whose group declares none. Default `best-effort`. */
  readonly roundPolicy?: RoundPolicy;
  /** Decides what counts as a success claim, or `false` to turn the guardrail off. Default {@link claimsSuccess}. */
  readonly guardrail?: SuccessClaimDetector | false;
  /** Require a structured final answer. */
  readonly finalAnswer?: FinalAnswerOptions;
  /** Where poisoned calls go. Default: a new `InMemoryDeadLetterQueue`. */
  readonly deadLetters?: DeadLetterQueue;
  /** Failures of one call (tool + equal arguments) with one code that end the run. Default 3. */
  readonly poisonThreshold?: number;
  /** Signs checkpoints; agents sharing it can resume each other's. Default: a random key per agent instance. */
  readonly checkpointSecret?: string | Uint8Array;
  /** Calls needing approval besides tools declared with `requiresApproval`. */
  readonly approvalPolicy?: ApprovalPolicy;
  /** Remembers resumed checkpoints. Default: in memory, shared by the process. */
  readonly resumedCheckpoints?: ResumedCheckpointStore;
  /** Epoch milliseconds, for dead-letter and checkpoint times. Default `Date.now`. */
  readonly clock?: () => number;
}

/**
 * Options of `agent.run()`.
 *
 * @example
 * ```ts
 * await agent.run("Sync c1", { signal: AbortSignal.timeout(60_000), runId: request.id });
 * ```
 */
export interface RunOptions {
  /** Cancels the run: in-flight tools are aborted and `run` rejects with an AbortError. */
  readonly signal?: AbortSignal;
  /** Default: generated. */
  readonly runId?: string;
}

/**
 * Options of `agent.resume()`.
 *
 * @example
 * ```ts
 * await agent.resume(checkpoint, decisions, { signal: AbortSignal.timeout(60_000) });
 * ```
 */
export interface ResumeOptions {
  readonly signal?: AbortSignal;
}

/**
 * The defaults of {@link CreateAgentOptions}.
 *
 * @example
 * ```ts
 * AGENT_DEFAULTS.maxIterations; // 10
 * ```
 */
export const AGENT_DEFAULTS = Object.freeze({
  maxIterations: 10,
  maxConcurrency: 8,
  roundPolicy: "best-effort" as RoundPolicy,
  poisonThreshold: 3,
});

const KNOWN = new Set(["name", "instructions", "chatClient", "maxIterations", "maxConcurrency", "roundPolicy", "guardrail", "finalAnswer", "deadLetters", "poisonThreshold", "checkpointSecret", "approvalPolicy", "resumedCheckpoints", "clock"]);
const POLICIES: readonly RoundPolicy[] = ["best-effort", "all-or-nothing", "fail-fast"];

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`createAgent: \`${name}\` must be a positive integer, not ${String(value)}.`);
  return value;
}

/** Checks options and fills in defaults. @internal */
export function resolveAgentOptions(options: CreateAgentOptions) {
  if (typeof options !== "object" || options === null) throw new TypeError("createAgent: pass { name, instructions, chatClient, ... }.");
  for (const key of Object.keys(options)) if (!KNOWN.has(key)) throw new TypeError(`createAgent: unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  if (typeof options.name !== "string" || options.name.trim() === "") throw new TypeError("createAgent: `name` must be a non-empty string.");
  if (typeof options.instructions !== "string") throw new TypeError("createAgent: `instructions` must be a string (the system prompt).");
  if (typeof options.chatClient?.complete !== "function") throw new TypeError("createAgent: `chatClient` must implement complete(request) (e.g. new ScriptedChatClient([...]) or an OpenAIChatClient).");
  const roundPolicy = options.roundPolicy ?? AGENT_DEFAULTS.roundPolicy;
  if (!POLICIES.includes(roundPolicy)) throw new TypeError(`createAgent: \`roundPolicy\` must be one of ${POLICIES.join(", ")}.`);
  if (options.guardrail !== undefined && options.guardrail !== false && typeof options.guardrail !== "function") {
    throw new TypeError("createAgent: `guardrail` must be a function (text) => boolean that detects success claims, or false.");
  }
  if (options.finalAnswer !== undefined && (typeof options.finalAnswer.schema?.safeParse !== "function" || typeof options.finalAnswer.statusField !== "string")) {
    throw new TypeError("createAgent: `finalAnswer` must be { schema: a zod schema, statusField: the name of its status field }.");
  }
  return {
    ...options,
    maxIterations: positiveInteger("maxIterations", options.maxIterations, AGENT_DEFAULTS.maxIterations),
    maxConcurrency: positiveInteger("maxConcurrency", options.maxConcurrency, AGENT_DEFAULTS.maxConcurrency),
    poisonThreshold: positiveInteger("poisonThreshold", options.poisonThreshold, AGENT_DEFAULTS.poisonThreshold),
    roundPolicy,
    clock: options.clock ?? Date.now,
  };
}

/** Options after defaults. @internal */
export type ResolvedAgentOptions = ReturnType<typeof resolveAgentOptions>;
