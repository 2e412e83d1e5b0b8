import type { AgentFunctionDescriptor, RoundPolicy, ToolClass, ToolInvoker, ToolOutcome } from "@needlework/core";
import type { ResilienceOptions } from "../resilience/index.js";
import type { ResilienceEvents } from "../resilience/resilience-events.js";
import { resolveResilienceOptions } from "../resilience/resilience.options.js";
import { resolveTokenBudget, type RunLimits, type TokenBudget } from "./policies/budgets.js";
import type { ChatClient } from "@needlework/core";
import type { DeadLetterQueue } from "./persistence/dead-letter-queue.js";
import type { FinalAnswerOptions } from "./policies/final-answer.js";
import type { ResumedCheckpointStore } from "./persistence/resumed-checkpoint-store.js";
import type { AgentStore } from "./durable/run-journal.js";
import { MIN_CHECKPOINT_SECRET_BYTES } from "./persistence/checkpoint.js";
import { type AgentHooks, HOOK_NAMES } from "./hooks.js";
import { DEFAULT_STALL_THRESHOLD } from "./policies/stall.js";
import type { SuccessClaimDetector } from "./policies/success-claim.js";

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
  /**
   * Composes the factory's pipeline again, over some of its tool classes (`classes`, for
   * `functionGroups`/`functions`) and/or with the resilience plugin swapped for one built from
   * `resilience` (what the `resilience` option needs). `factory.createAgent` supplies it; without
   * it, tool selection is a filtering view of `invoker` and `resilience` is refused.
   */
  readonly composeInvoker?: (request: {
    readonly classes?: readonly ToolClass[];
    readonly resilience?: ResilienceOptions;
  }) => ToolInvoker;
  /** The pipeline's resilience events (`factory.createAgent` supplies them): streamed runs emit `tool-retry` from them. */
  readonly retryEvents?: readonly ResilienceEvents[];
}

/**
 * An agent without its model: everything `createAgent` takes except `chatClient`. `@Agent(...)`
 * declares one on a class. Defaults: {@link AGENT_DEFAULTS}.
 *
 * @example
 * ```ts
 * const definition: AgentDefinition = { name: "support", instructions: "Answer order questions.", functionGroups: ["orders"] };
 * ```
 */
export interface AgentDefinition extends AgentHooks {
  readonly name: string;
  /** The system prompt. */
  readonly instructions: string;
  /** What the agent is for, in a sentence (for people and for agents that pick other agents). */
  readonly description?: string;
  /**
   * Offer only the tools of classes in these groups (`@AgentFunctionGroup("orders")`), plus those of
   * `functions`. Naming neither offers every tool of the factory.
   */
  readonly functionGroups?: readonly string[];
  /** Offer the tools of these classes (besides those of `functionGroups`). */
  readonly functions?: readonly ToolClass[];
  /**
   * Resilience for this agent's tool calls. Replaces the factory's `usingResilience()` options
   * for this agent (never stacks on them); needs `factory.createAgent`.
   */
  readonly resilience?: ResilienceOptions;
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
  /**
   * Tool calls the model may make in one run. Calls beyond it are not run (`TOOL_CALL_LIMIT_REACHED`)
   * and the model is asked to answer without tools. Default: no limit.
   */
  readonly maxTotalToolCalls?: number;
  /**
   * Tool rounds the model may run before it must answer in text: once reached, the next model turn
   * is offered no tools and told to answer. A text answer (or a correction turn) starts a new
   * iteration. Default: no limit (only `maxIterations`).
   */
  readonly maxToolRoundsPerIteration?: number;
  /** A token budget from the chat client's usage; see {@link TokenBudget}. Default: none. */
  readonly tokenBudget?: TokenBudget;
  /**
   * Consecutive rounds with the same calls, arguments and outcomes that end the run `stalled`,
   * or `false` to turn stall detection off. Default 3.
   */
  readonly stallThreshold?: number | false;
  /**
   * Signs checkpoints; agents sharing it can resume each other's. At least 32 bytes (UTF-8 for a
   * string). Default: a random key per agent instance.
   */
  readonly checkpointSecret?: string | Uint8Array;
  /** Checkpoints older than this are refused on resume (`CHECKPOINT_EXPIRED`). Default 7 days. */
  readonly checkpointMaxAgeMs?: number;
  /** Calls needing approval besides tools declared with `requiresApproval`. */
  readonly approvalPolicy?: ApprovalPolicy;
  /**
   * Remembers resumed checkpoints. Default: with a `checkpointSecret`, a
   * {@link FileResumedCheckpointStore} in `~/.needlework/resumed-checkpoints` (or
   * `$NEEDLEWORK_STATE_DIR/resumed-checkpoints`), so a replay after a restart is refused; without
   * one, in memory (checkpoints cannot outlive the instance's random key anyway).
   */
  readonly resumedCheckpoints?: ResumedCheckpointStore;
  /**
   * Journals every run (so `agent.resumeRun(runId)` continues it on any instance after its process
   * died) and supplies dead letters and checkpoint claims unless `deadLetters` or
   * `resumedCheckpoints` are given: `new InMemoryRunStore()`, `new FileRunStore(dir)` or
   * `PostgresStore` from `@needlework/postgres`. Default: none (runs are not journaled).
   */
  readonly store?: AgentStore;
  /** Epoch milliseconds, for dead-letter and checkpoint times. Default `Date.now`. */
  readonly clock?: () => number;
}

/**
 * Options of `factory.createAgent()` and `createAgent(deps, options)`: a definition and its model.
 *
 * @example
 * ```ts
 * factory.createAgent({ name: "crm-sync", instructions: "Sync contacts.", chatClient, roundPolicy: "all-or-nothing" });
 * ```
 */
export interface CreateAgentOptions extends AgentDefinition {
  readonly chatClient: ChatClient;
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
  stallThreshold: DEFAULT_STALL_THRESHOLD,
  checkpointMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
});

const KNOWN = new Set([
  "name",
  "instructions",
  "chatClient",
  "description",
  "functionGroups",
  "functions",
  "resilience",
  "maxIterations",
  "maxConcurrency",
  "roundPolicy",
  "guardrail",
  "finalAnswer",
  "deadLetters",
  "poisonThreshold",
  "maxTotalToolCalls",
  "maxToolRoundsPerIteration",
  "tokenBudget",
  "stallThreshold",
  "checkpointSecret",
  "checkpointMaxAgeMs",
  "approvalPolicy",
  "resumedCheckpoints",
  "store",
  "clock",
  ...HOOK_NAMES,
]);
const POLICIES: readonly RoundPolicy[] = ["best-effort", "all-or-nothing", "fail-fast"];

/**
 * Checks a definition (everything but `chatClient`) and fills in defaults; `where` prefixes every
 * message (`createAgent`, `@Agent on SupportAgent`).
 * @internal
 */
export function resolveAgentDefinition(options: AgentDefinition, where = "createAgent") {
  const fail = (problem: string): never => {
    throw new TypeError(`${where}: ${problem}`);
  };
  const positiveInteger = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) fail(`\`${name}\` must be a positive integer, not ${String(value)}.`);
    return value;
  };
  if (typeof options !== "object" || options === null) fail("pass { name, instructions, chatClient, ... }.");
  for (const key of Object.keys(options))
    if (!KNOWN.has(key)) fail(`unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  if (typeof options.name !== "string" || options.name.trim() === "") fail("`name` must be a non-empty string.");
  if (typeof options.instructions !== "string") fail("`instructions` must be a string (the system prompt).");
  if (options.description !== undefined && typeof options.description !== "string")
    fail("`description` must be a string.");
  const roundPolicy = options.roundPolicy ?? AGENT_DEFAULTS.roundPolicy;
  if (!POLICIES.includes(roundPolicy)) fail(`\`roundPolicy\` must be one of ${POLICIES.join(", ")}.`);
  if (options.guardrail !== undefined && options.guardrail !== false && typeof options.guardrail !== "function") {
    fail("`guardrail` must be a function (text) => boolean that detects success claims, or false.");
  }
  if (
    options.finalAnswer !== undefined &&
    (typeof options.finalAnswer.schema?.safeParse !== "function" || typeof options.finalAnswer.statusField !== "string")
  ) {
    fail("`finalAnswer` must be { schema: a zod schema, statusField: the name of its status field }.");
  }
  const { functionGroups, functions } = options;
  if (
    functionGroups !== undefined &&
    (!Array.isArray(functionGroups) || !functionGroups.every((g) => typeof g === "string" && g.trim() !== ""))
  ) {
    fail('`functionGroups` must be an array of group names (as in @AgentFunctionGroup("orders")).');
  }
  if (functions !== undefined && (!Array.isArray(functions) || !functions.every((c) => typeof c === "function"))) {
    fail("`functions` must be an array of tool classes (decorated with @AgentFunctionGroup).");
  }
  if (options.resilience !== undefined) {
    try {
      resolveResilienceOptions(options.resilience);
    } catch (error) {
      fail(`\`resilience\`: ${(error as Error).message.replace(/^usingResilience: /, "")}`);
    }
  }
  const { store } = options;
  const storeParts = [store?.journal?.read, store?.deadLetters?.append, store?.resumedCheckpoints?.claim];
  if (store !== undefined && !storeParts.every((part) => typeof part === "function")) {
    fail(
      "`store` must be an AgentStore { journal, deadLetters, resumedCheckpoints } " +
        "(new InMemoryRunStore(), new FileRunStore(dir) or a PostgresStore).",
    );
  }
  for (const hook of HOOK_NAMES)
    if (options[hook] !== undefined && typeof options[hook] !== "function")
      fail(`\`${hook}\` must be a function (it may be async).`);
  const secret = options.checkpointSecret;
  if (secret !== undefined) {
    const bytes =
      typeof secret === "string"
        ? Buffer.byteLength(secret, "utf8")
        : secret instanceof Uint8Array
          ? secret.byteLength
          : -1;
    if (bytes < 0) fail("`checkpointSecret` must be a string or a Uint8Array.");
    if (bytes < MIN_CHECKPOINT_SECRET_BYTES) {
      fail(
        `\`checkpointSecret\` must be at least ${MIN_CHECKPOINT_SECRET_BYTES} bytes (got ${bytes}); a short key lets anyone forge checkpoints. Use e.g. crypto.randomBytes(32).toString("hex").`,
      );
    }
  }
  const stallThreshold: number | false =
    options.stallThreshold === false
      ? false
      : positiveInteger("stallThreshold", options.stallThreshold, AGENT_DEFAULTS.stallThreshold);
  return {
    ...options,
    maxIterations: positiveInteger("maxIterations", options.maxIterations, AGENT_DEFAULTS.maxIterations),
    maxConcurrency: positiveInteger("maxConcurrency", options.maxConcurrency, AGENT_DEFAULTS.maxConcurrency),
    poisonThreshold: positiveInteger("poisonThreshold", options.poisonThreshold, AGENT_DEFAULTS.poisonThreshold),
    roundPolicy,
    stallThreshold,
    checkpointMaxAgeMs: positiveInteger(
      "checkpointMaxAgeMs",
      options.checkpointMaxAgeMs,
      AGENT_DEFAULTS.checkpointMaxAgeMs,
    ),
    limits: {
      maxTotalToolCalls:
        options.maxTotalToolCalls === undefined
          ? undefined
          : positiveInteger("maxTotalToolCalls", options.maxTotalToolCalls, 0),
      maxToolRoundsPerIteration:
        options.maxToolRoundsPerIteration === undefined
          ? undefined
          : positiveInteger("maxToolRoundsPerIteration", options.maxToolRoundsPerIteration, 0),
      tokenBudget: resolveTokenBudget(options.tokenBudget, fail),
    } satisfies RunLimits,
    clock: options.clock ?? Date.now,
  };
}

/** Checks options (a definition and its `chatClient`) and fills in defaults. @internal */
export function resolveAgentOptions(options: CreateAgentOptions, where = "createAgent") {
  const resolved = resolveAgentDefinition(options, where);
  if (typeof options.chatClient?.complete !== "function") {
    throw new TypeError(
      `${where}: \`chatClient\` must implement complete(request) (e.g. new ScriptedChatClient([...]) or an OpenAIChatClient).`,
    );
  }
  return { ...resolved, chatClient: options.chatClient };
}

/** Options after defaults. @internal */
export type ResolvedAgentOptions = ReturnType<typeof resolveAgentOptions>;
