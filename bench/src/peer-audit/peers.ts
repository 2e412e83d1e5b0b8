// The peers at their documented defaults: the AI SDK's ToolLoopAgent, the OpenAI Agents SDK's
// run(), LangChain's createAgent (and with toolRetryMiddleware() as documented, no options). Each
// one's scripted model reads the framework's own prompt: the text of a tool result and its native
// error marker, if the framework has one (the AI SDK's `error-text`/`error-json` output, LangChain's
// ToolMessage `status: "error"`; the OpenAI Agents SDK has none: its default error function writes
// a fixed text in the tool's place, which is its marker). Everything else is data. The tool body
// passes an Idempotency-Key derived from the tool and its arguments, as a careful user of those
// frameworks would (none gives one); `keys: "call-id"` passes the framework's call id instead (a
// labelled sensitivity row: a model's retry under a new call id then writes twice).
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool as langchainTool } from "@langchain/core/tools";
import {
  type AgentInputItem,
  Agent as OpenAIAgent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  tool as openaiTool,
  run as openaiRun,
  setTracingDisabled,
  Usage,
} from "@openai/agents";
import { tool as aiTool, ToolLoopAgent } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createAgent as createLangChainAgent, toolRetryMiddleware } from "langchain";
import { createHash } from "node:crypto";
import { z } from "zod";
import { syncContact } from "./clients.js";
import { callArguments, type ModelTurn, nextTurn, type Reader, type SeenResult } from "./model.js";
import type { FakeCrm, RunPlan } from "./world.js";

/** Where a peer's tool takes its Idempotency-Key: its tool and arguments (the default), or the call id. */
export type PeerKeys = "arguments" | "call-id";

/** The key a peer's tool sends: a hash of the tool and its arguments, or the framework's call id. */
export function peerKey(keys: PeerKeys, callId: string, args: Record<string, unknown>): string {
  if (keys === "call-id") return callId;
  const canonical = JSON.stringify(
    Object.keys(args)
      .sort()
      .map((k) => [k, args[k]]),
  );
  return createHash("sha256").update(`${TOOL_NAME}\u0000${canonical}`).digest("hex").slice(0, 32);
}

/** The OpenAI Agents SDK's default tool error text (`defaultToolErrorFunction`): its documented marker. */
export const OPENAI_AGENTS_ERROR_TEXT = "An error occurred while running the tool. Please try again.";

/** How a run ended, as the application sees it. */
export interface FrameworkRun {
  /**
   * The application was told something went wrong, by the framework's documented check: a peer's run
   * threw or a tool result carried its error marker (AI SDK `tool-error`, LangChain `status: "error"`,
   * OpenAI Agents' fixed error text); needlework: status not `completed`.
   */
  readonly flagged: boolean;
  /** The model's final turn said the work is done. */
  readonly saidDone: boolean;
  /** Calls the model made per write (contact id): 1 when it never retried it. */
  readonly callsPerWrite: ReadonlyMap<string, number>;
  readonly status: string;
}

/** What the tool is told to do: one contact. */
export const SyncInput = z.object({
  contactId: z.string().describe("The contact's id in the CRM."),
  email: z.string().describe("The contact's new email."),
  note: z.string().describe("The sync note to post on the contact."),
});
/** The tool every framework declares, with the same name, description and schema. */
export const TOOL_NAME = "sync_contact";
export const TOOL_DESCRIPTION = "Updates a contact in the CRM and posts a sync note on it.";
export const INSTRUCTIONS = "Sync each contact with sync_contact, then report what was and was not written.";

/** The run's request, as the user types it. */
export function request(plan: RunPlan): string {
  return `Sync these contacts: ${plan.writes.map((w) => w.contactId).join(", ")}.`;
}

const asText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/** A conversation collector shared by the adapters: calls in order and each call's result. */
export class Conversation {
  readonly calls: { id: string; contactId: string }[] = [];
  readonly results = new Map<string, SeenResult>();
  turns = 0;
  last: ModelTurn | undefined;

  call(id: string, args: unknown): void {
    if (this.calls.some((c) => c.id === id)) return;
    const contactId = String(
      (typeof args === "string" ? JSON.parse(args) : (args as { contactId?: unknown }))?.contactId,
    );
    this.calls.push({ id, contactId });
  }

  result(id: string, result: SeenResult): void {
    this.results.set(id, result);
  }

  /** The model's turn on this conversation. */
  next(plan: RunPlan, reader: Reader, turns: number): ModelTurn {
    this.turns = turns;
    this.last = nextTurn(plan.writes, this, reader);
    // Recorded as made: a run may end before the model reads its next prompt.
    if (this.last.kind === "calls") for (const c of this.last.calls) this.call(c.id, c.write);
    return this.last;
  }

  /** Calls the model made per write. */
  callsPerWrite(): Map<string, number> {
    const perWrite = new Map<string, number>();
    for (const c of this.calls) perWrite.set(c.contactId, (perWrite.get(c.contactId) ?? 0) + 1);
    return perWrite;
  }

  /**
   * The run's end: `threw`, or for a peer a write whose last tool result its framework marked (its
   * documented check, read generously: a failure the model's retry recovered is no alarm).
   */
  outcome(threw: boolean, status: string, byStatus = false): FrameworkRun {
    const saidDone = this.last?.kind === "text" && this.last.done;
    const lastPerWrite = new Map<string, string>();
    for (const c of this.calls) if (this.results.has(c.id)) lastPerWrite.set(c.contactId, c.id);
    const marked = !byStatus && [...lastPerWrite.values()].some((id) => this.results.get(id)?.flagged === true);
    return { flagged: threw || marked, saidDone, callsPerWrite: this.callsPerWrite(), status };
  }
}

// ---------------------------------------------------------------------------------------------
// AI SDK 7: ToolLoopAgent (default stop condition: 20 steps) over MockLanguageModelV4.

type V4Part = { type: string; [key: string]: unknown };
type V4Message = { role: string; content: string | V4Part[] };

function readV4Prompt(prompt: readonly V4Message[], seen: Conversation): number {
  let turns = 0;
  for (const m of prompt) {
    if (typeof m.content === "string") continue;
    if (m.role === "assistant") {
      turns++;
      for (const p of m.content) if (p.type === "tool-call") seen.call(String(p["toolCallId"]), p["input"]);
    } else if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type !== "tool-result") continue;
        const output = p["output"] as { type: string; value?: unknown };
        seen.result(String(p["toolCallId"]), {
          text: asText(output.value),
          flagged: output.type === "error-text" || output.type === "error-json",
        });
      }
    }
  }
  return turns;
}

/**
 * The AI SDK 7's `ToolLoopAgent` with its defaults: a tool's exception becomes a `tool-error`, which
 * the model reads as an `error-text` tool result (the exception's message).
 *
 * @example
 * ```ts
 * const run = await runAiSdk(plan, crm, "careful");
 * ```
 */
export async function runAiSdk(
  plan: RunPlan,
  crm: FakeCrm,
  reader: Reader,
  keys: PeerKeys = "arguments",
): Promise<FrameworkRun> {
  const seen = new Conversation();
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const turns = readV4Prompt(options.prompt as unknown as V4Message[], seen);
      const turn = seen.next(plan, reader, turns);
      const content =
        turn.kind === "calls"
          ? turn.calls.map((c) => ({
              type: "tool-call" as const,
              toolCallId: c.id,
              toolName: TOOL_NAME,
              input: JSON.stringify(callArguments(c.write)),
            }))
          : [{ type: "text" as const, text: turn.text }];
      const reason = turn.kind === "calls" ? "tool-calls" : "stop";
      return { content, finishReason: { unified: reason, raw: reason }, usage, warnings: [] } as never;
    },
  });
  const agent = new ToolLoopAgent({
    model,
    instructions: INSTRUCTIONS,
    tools: {
      [TOOL_NAME]: aiTool({
        description: TOOL_DESCRIPTION,
        inputSchema: SyncInput,
        execute: (args, { toolCallId }) => syncContact(crm, plan.client, args, peerKey(keys, toolCallId, args)),
      }),
    },
  });
  try {
    await agent.generate({ prompt: request(plan) });
    return seen.outcome(false, "completed");
  } catch {
    return seen.outcome(true, "threw");
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Agents SDK 0.20: run() (default maxTurns 10) over a scripted Model.

// The SDK exports traces to OpenAI by default; the audit runs offline.
setTracingDisabled(true);

class ScriptedAgentsModel implements Model {
  readonly seen = new Conversation();

  constructor(
    private readonly plan: RunPlan,
    private readonly reader: Reader,
  ) {}

  async getResponse(req: ModelRequest): Promise<ModelResponse> {
    const items = typeof req.input === "string" ? [] : (req.input as AgentInputItem[]);
    let turns = 0;
    let inTurn = false;
    for (const item of items as Array<Record<string, unknown>>) {
      if (item["type"] === "function_call") {
        if (!inTurn) turns++;
        inTurn = true;
        this.seen.call(String(item["callId"]), item["arguments"]);
        continue;
      }
      inTurn = false;
      if (item["type"] === "function_call_result") {
        const output = item["output"] as { type?: string; text?: unknown } | string;
        const text = typeof output === "string" ? output : asText(output?.text ?? output);
        // Its marker is the default error function's fixed text (the result item is shaped like any other).
        this.seen.result(String(item["callId"]), { text, flagged: text.startsWith(OPENAI_AGENTS_ERROR_TEXT) });
      }
    }
    const turn = this.seen.next(this.plan, this.reader, turns);
    const output =
      turn.kind === "calls"
        ? turn.calls.map((c) => ({
            type: "function_call" as const,
            id: c.id,
            callId: c.id,
            name: TOOL_NAME,
            arguments: JSON.stringify(callArguments(c.write)),
            status: "completed" as const,
          }))
        : [
            {
              type: "message" as const,
              id: `msg_${turns}`,
              role: "assistant" as const,
              status: "completed" as const,
              content: [{ type: "output_text" as const, text: turn.text }],
            },
          ];
    return { usage: new Usage(), output, responseId: `resp_${turns}` } as ModelResponse;
  }

  // biome-ignore lint/correctness/useYield: the audit never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the audit does not stream");
  }
}

/**
 * The OpenAI Agents SDK's `run()` with its defaults: a tool's exception is answered with the
 * default tool error function's fixed text.
 *
 * @example
 * ```ts
 * const run = await runOpenAIAgents(plan, crm, "hurried");
 * ```
 */
export async function runOpenAIAgents(
  plan: RunPlan,
  crm: FakeCrm,
  reader: Reader,
  keys: PeerKeys = "arguments",
): Promise<FrameworkRun> {
  const model = new ScriptedAgentsModel(plan, reader);
  const sync = openaiTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: SyncInput,
    execute: (args, _context, details) =>
      syncContact(crm, plan.client, args, peerKey(keys, details?.toolCall?.callId ?? "", args)) as Promise<never>,
  });
  const agent = new OpenAIAgent({ name: "crm-sync", instructions: INSTRUCTIONS, model, tools: [sync] });
  try {
    await openaiRun(agent, request(plan));
    return model.seen.outcome(false, "completed");
  } catch {
    return model.seen.outcome(true, "threw");
  }
}

// ---------------------------------------------------------------------------------------------
// LangChain 1.x: createAgent (default recursionLimit 25) over a scripted tool-calling chat model.

class ScriptedLangChainModel extends BaseChatModel {
  readonly seen = new Conversation();

  constructor(
    private readonly plan: RunPlan,
    private readonly reader: Reader,
  ) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    let turns = 0;
    for (const m of messages) {
      if (AIMessage.isInstance(m)) {
        turns++;
        for (const c of m.tool_calls ?? []) this.seen.call(c.id ?? "", c.args);
      } else if (ToolMessage.isInstance(m)) {
        this.seen.result(m.tool_call_id, { text: asText(m.content), flagged: m.status === "error" });
      }
    }
    const turn = this.seen.next(this.plan, this.reader, turns);
    const message = new AIMessage({
      content: turn.kind === "text" ? turn.text : "",
      tool_calls:
        turn.kind === "calls"
          ? turn.calls.map((c) => ({
              id: c.id,
              name: TOOL_NAME,
              args: callArguments(c.write),
              type: "tool_call" as const,
            }))
          : [],
    });
    return { generations: [{ message, text: turn.kind === "text" ? turn.text : "" }] };
  }
}

/**
 * LangChain's `createAgent` with its defaults (a tool's exception becomes a ToolMessage with
 * `status: "error"`); with `retry`, `toolRetryMiddleware()` as documented, with no options.
 *
 * @example
 * ```ts
 * const run = await runLangChain(plan, crm, "flag", true);
 * ```
 */
export async function runLangChain(
  plan: RunPlan,
  crm: FakeCrm,
  reader: Reader,
  retry = false,
  keys: PeerKeys = "arguments",
): Promise<FrameworkRun> {
  const model = new ScriptedLangChainModel(plan, reader);
  const sync = langchainTool(
    (args: z.infer<typeof SyncInput>, config: { toolCall?: { id?: string } }) =>
      syncContact(crm, plan.client, args, peerKey(keys, config?.toolCall?.id ?? "", args)),
    { name: TOOL_NAME, description: TOOL_DESCRIPTION, schema: SyncInput },
  );
  // Cast: its option types do not meet this repo's exactOptionalPropertyTypes.
  const middleware = (retry ? [toolRetryMiddleware()] : []) as never[];
  const agent = createLangChainAgent({ model, tools: [sync], systemPrompt: INSTRUCTIONS, middleware });
  try {
    await agent.invoke({ messages: [{ role: "user", content: request(plan) }] });
    return model.seen.outcome(false, "completed");
  } catch {
    return model.seen.outcome(true, "threw");
  }
}
