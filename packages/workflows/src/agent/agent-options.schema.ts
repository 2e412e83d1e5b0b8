import type { ChatClient, ToolClass, ToolInvoker } from "@needlework/core";
import { ownOptions } from "@needlework/core/kit";
import { z } from "zod";
import { functionOption, integerAtLeast } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "../options/parse-options.js";
import { resilienceOptionsSchema } from "../resilience/resilience.options.js";
import { AGENT_DEFAULTS } from "./agent-defaults.js";
import type { AgentDefinition, CreateAgentOptions } from "./agent.options.js";
import type { AgentStore, DurableExecutionFactory } from "@needlework/durable";
import type { AgentHooks } from "./hooks.js";
import { MIN_CHECKPOINT_SECRET_BYTES } from "@needlework/durable";
import type { DeadLetterQueue } from "@needlework/durable";
import type { ResumedCheckpointStore } from "./approvals/claims.js";
import type { ApprovalPolicy } from "./approvals/approval-options.js";
import { type RunLimits, TOKEN_BUDGET_DEFAULTS, type TokenBudget } from "./policies/budgets.js";
import type { FinalAnswerOptions } from "./policies/final-answer.js";
import type { SuccessClaimDetector } from "./policies/success-claim.js";

/** True when `value` is an object whose `methods` are all functions (a store, a queue, ...). */
function hasMethods(value: unknown, ...methods: readonly string[]): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function")
  );
}

const GROUP = 'must be a non-empty group name (as in @AgentFunctionGroup("orders"))';
const GROUPS = 'must be an array of group names (as in @AgentFunctionGroup("orders"))';
const TOOL_CLASS = "must be a tool class (decorated with @AgentFunctionGroup)";
const GUARDRAIL = "must be a function (text) => boolean that detects success claims, or false";
const STALL = "must be an integer of at least 1, or false";
const SHARE = "must be a share of maxTokens above 0 and below 1 (e.g. 0.8)";
const HOOK = "must be a function (it may be async)";
const SECRET = "must be a string or a Uint8Array";

const tokenBudgetSchema = z.strictObject(
  { maxTokens: integerAtLeast(1), pressureThreshold: z.number(SHARE).gt(0, SHARE).lt(1, SHARE).optional() },
  "must be { maxTokens, pressureThreshold? }",
);

const finalAnswerSchema = z.strictObject(
  {
    schema: z.custom<z.ZodType>((v) => hasMethods(v, "safeParse"), "must be a zod schema"),
    statusField: z.string("must be the name of the schema's status field"),
    successValues: z.array(z.string("must be a string"), "must be an array of status values").readonly().optional(),
  },
  "must be { schema: a zod schema, statusField: the name of its status field }",
);

// z.custom, not z.instanceof: the latter types a Uint8Array over an ArrayBuffer only, not a SharedArrayBuffer.
const bytesSchema = z.custom<Uint8Array>((v) => v instanceof Uint8Array, SECRET);
const checkpointSecretSchema = z.union([z.string(), bytesSchema], SECRET).superRefine((secret, ctx) => {
  const bytes = typeof secret === "string" ? Buffer.byteLength(secret, "utf8") : secret.byteLength;
  if (bytes >= MIN_CHECKPOINT_SECRET_BYTES) return;
  ctx.addIssue({
    code: "custom",
    message:
      `must be at least ${MIN_CHECKPOINT_SECRET_BYTES} bytes, not ${bytes}: a short key lets anyone forge ` +
      'checkpoints. Use e.g. crypto.randomBytes(32).toString("hex")',
  });
});

const agentDefinitionShape = {
  name: z.string("must be a non-empty string").refine((name) => name.trim() !== "", "must be a non-empty string"),
  instructions: z.string("must be a string (the system prompt)"),
  description: z.string("must be a string").optional(),
  functionGroups: z
    .array(
      z.string(GROUP).refine((group) => group.trim() !== "", GROUP),
      GROUPS,
    )
    .readonly()
    .optional(),
  functions: z
    .array(
      z.custom<ToolClass>((v) => typeof v === "function", TOOL_CLASS),
      "must be an array of tool classes (decorated with @AgentFunctionGroup)",
    )
    .readonly()
    .optional(),
  resilience: resilienceOptionsSchema.optional(),
  maxIterations: integerAtLeast(1).optional(),
  maxConcurrency: integerAtLeast(1).optional(),
  maxToolCallsPerTurn: integerAtLeast(1).optional(),
  roundPolicy: z
    .enum(["best-effort", "all-or-nothing", "fail-fast"], "must be one of best-effort, all-or-nothing, fail-fast")
    .optional(),
  guardrail: z.union([z.literal(false), functionOption<SuccessClaimDetector>(GUARDRAIL)], GUARDRAIL).optional(),
  finalAnswer: finalAnswerSchema.optional(),
  deadLetters: z
    .custom<DeadLetterQueue>(
      (v) => hasMethods(v, "append", "list"),
      "must be a DeadLetterQueue with append and list (e.g. new InMemoryDeadLetterQueue())",
    )
    .optional(),
  poisonThreshold: integerAtLeast(1).optional(),
  maxTotalToolCalls: integerAtLeast(1).optional(),
  maxToolRoundsPerIteration: integerAtLeast(1).optional(),
  tokenBudget: tokenBudgetSchema.optional(),
  stallThreshold: z.union([z.literal(false), integerAtLeast(1)], STALL).optional(),
  checkpointSecret: checkpointSecretSchema.optional(),
  checkpointMaxAgeMs: integerAtLeast(1).optional(),
  approvalPolicy: functionOption<ApprovalPolicy>().optional(),
  resumedCheckpoints: z
    .custom<ResumedCheckpointStore>(
      (v) => hasMethods(v, "claim"),
      "must be a ResumedCheckpointStore with claim (e.g. new InMemoryResumedCheckpointStore())",
    )
    .optional(),
  store: z
    .custom<AgentStore>((v) => {
      const store = v as Partial<AgentStore> | null;
      return hasMethods(store?.journal, "read") && hasMethods(store?.deadLetters, "append");
    }, "must be an AgentStore { journal, deadLetters } " +
      "(new InMemoryRunStore(), new FileRunStore(dir) or a PostgresStore)")
    .optional(),
  execution: functionOption<DurableExecutionFactory>().optional(),
  clock: functionOption<() => number>().optional(),
  onIterationStart: functionOption<NonNullable<AgentHooks["onIterationStart"]>>(HOOK).optional(),
  onToolCall: functionOption<NonNullable<AgentHooks["onToolCall"]>>(HOOK).optional(),
  onIterationEnd: functionOption<NonNullable<AgentHooks["onIterationEnd"]>>(HOOK).optional(),
};

const agentDefinitionSchema = z.strictObject(agentDefinitionShape, "must be an object: { name, instructions, ... }");

const createAgentOptionsSchema = z.strictObject(
  {
    ...agentDefinitionShape,
    chatClient: z.custom<ChatClient>(
      (v) => hasMethods(v, "complete"),
      "must implement complete(request) (e.g. new ScriptedChatClient([...]) or an OpenAIChatClient)",
    ),
  },
  "must be an object: { name, instructions, chatClient, ... }",
);

/** Every key of {@link CreateAgentOptions}. */
const AGENT_OPTION_KEYS = Object.keys(createAgentOptionsSchema.shape) as readonly (keyof CreateAgentOptions & string)[];

true satisfies SchemaMatches<typeof agentDefinitionSchema, AgentDefinition>;
true satisfies SchemaMatches<typeof createAgentOptionsSchema, CreateAgentOptions>;
true satisfies SchemaMatches<typeof tokenBudgetSchema, TokenBudget>;
true satisfies SchemaMatches<typeof finalAnswerSchema, FinalAnswerOptions>;

/**
 * A valid definition with the defaults filled in. The caller's own objects are kept (not the
 * parsed copies): agents given one `resilience` object share its pipeline, and hooks, stores and
 * policies keep their identity and `this`.
 */
function withDefaults<T extends AgentDefinition>(given: T) {
  // Own properties only: every known key is read from the caller's own properties (a polluted
  // Object.prototype supplies no `checkpointSecret`, `store`, hook or limit) and is an own key of
  // the result, so no later read of it, nor of a spread of it, reaches a prototype.
  const options = ownOptions(given, AGENT_OPTION_KEYS as unknown as readonly (keyof T & string)[]);
  const d = AGENT_DEFAULTS;
  const budget =
    options.tokenBudget === undefined ? undefined : ownOptions(options.tokenBudget, ["maxTokens", "pressureThreshold"]);
  return {
    ...options,
    maxIterations: options.maxIterations ?? d.maxIterations,
    maxConcurrency: options.maxConcurrency ?? d.maxConcurrency,
    maxToolCallsPerTurn: options.maxToolCallsPerTurn ?? d.maxToolCallsPerTurn,
    poisonThreshold: options.poisonThreshold ?? d.poisonThreshold,
    roundPolicy: options.roundPolicy ?? d.roundPolicy,
    stallThreshold: options.stallThreshold ?? d.stallThreshold,
    checkpointMaxAgeMs: options.checkpointMaxAgeMs ?? d.checkpointMaxAgeMs,
    limits: {
      maxTotalToolCalls: options.maxTotalToolCalls,
      maxToolRoundsPerIteration: options.maxToolRoundsPerIteration,
      tokenBudget: budget && {
        maxTokens: budget.maxTokens,
        pressureThreshold: budget.pressureThreshold ?? TOKEN_BUDGET_DEFAULTS.pressureThreshold,
      },
    } satisfies RunLimits,
    // A key nobody gave stays an own `undefined` (from `options`): the same to every reader as an absent one.
    ...(options.finalAnswer === undefined
      ? {}
      : { finalAnswer: ownOptions(options.finalAnswer, ["schema", "statusField", "successValues"]) }),
    clock: options.clock ?? Date.now,
  };
}

/**
 * Checks a definition (everything but `chatClient`, which `@Agent` refuses before) and fills in
 * defaults; `where` names the owner in every message (`createAgent`, `@Agent on SupportAgent`).
 * Throws an `InvalidOptionError` naming the option and the value given.
 * @internal
 */
export function resolveAgentDefinition(options: AgentDefinition, where = "createAgent") {
  parseOptions(where, agentDefinitionSchema, options);
  return withDefaults(options);
}

/**
 * Checks options (a definition and its `chatClient`) once, when the agent is created, and fills
 * in defaults.
 * @internal
 */
export function resolveAgentOptions(options: CreateAgentOptions, where = "createAgent") {
  parseOptions(where, createAgentOptionsSchema, options);
  return withDefaults(options);
}

/** Options after defaults. @internal */
export type ResolvedAgentOptions = ReturnType<typeof resolveAgentOptions>;

/**
 * Refuses an agent whose approvals nobody outside it could ever decide: it runs inside a durable
 * execution engine (`execution`), where a gated call waits for a decision record signed with the
 * agent's `checkpointSecret`, and it has none, so its key would be random per process: no record an
 * approval service signs (nor a run recovered by another process) would verify, and every gated
 * call would wait until its timeout. `offered`: the tools the agent offers.
 * @internal
 */
export function refuseUnverifiableApprovals(resolved: ResolvedAgentOptions, offered: ToolInvoker): void {
  if (resolved.execution === undefined || resolved.checkpointSecret !== undefined) return;
  const gated = offered.tools.filter((tool) => tool.options.requiresApproval === true).map((tool) => tool.name);
  if (gated.length === 0 && resolved.approvalPolicy === undefined) return;
  const asks =
    gated.length > 0
      ? `its tool${gated.length > 1 ? "s" : ""} ${gated.join(", ")} require${gated.length > 1 ? "" : "s"} approval`
      : "its approvalPolicy can ask for approval";
  throw new TypeError(
    `createAgent: agent '${resolved.name}' runs in a durable execution engine (execution) and ${asks}, but has no ` +
      "checkpointSecret: its key would be random per process, so no decision your approval service signs " +
      "(signApprovalDecision) could verify and every approval would wait until it times out. Pass checkpointSecret " +
      '(at least 32 bytes, e.g. crypto.randomBytes(32).toString("hex"), kept with your secrets): the one your ' +
      "approval service signs with.",
  );
}
