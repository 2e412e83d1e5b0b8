// The CRM sync audit's tools and optimistic model through each peer's own agent loop, with its
// documented default error handling and nothing a typical user would not write: the tool bodies
// call the same fake CRMs, and each framework's test model answers with the audit's optimistic
// model (it claims success unless the tool results force it not to), reading the conversation as
// that framework hands it over.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool as langchainTool } from "@langchain/core/tools";
import type { ChatMessage, ChatRequest } from "@needlework/core";
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
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createAgent as createLangChainAgent, toolRetryMiddleware } from "langchain";
import { z } from "zod";
import type { CrmDirectory } from "../../../examples/crm-sync-audit/fake-crm.js";
import type { WriteTool } from "../../../examples/crm-sync-audit/fault-plan.js";
import { INSTRUCTIONS, MAX_ITERATIONS, type ModeRun } from "../../../examples/crm-sync-audit/modes.js";
import { optimisticTurn } from "../../../examples/crm-sync-audit/optimistic-model.js";

const Crm = z.enum(["salesforce", "hubspot"]).describe("Which CRM to write to.");
const SCHEMAS: Record<WriteTool, z.ZodObject> = {
  update_contact: z.object({
    crm: Crm,
    contactId: z.string(),
    changes: z.object({ email: z.string().optional(), title: z.string().optional() }),
  }),
  create_task: z.object({ crm: Crm, contactId: z.string(), subject: z.string(), dueDate: z.string() }),
  post_note: z.object({ crm: Crm, contactId: z.string(), body: z.string() }),
};
const DESCRIPTIONS: Record<WriteTool, string> = {
  update_contact: "Sets fields of a contact in Salesforce or HubSpot.",
  create_task: "Creates a follow-up task on a contact.",
  post_note: "Posts an activity note on a contact.",
};
const TOOLS = Object.keys(SCHEMAS) as WriteTool[];

/** The write as every peer's tool body does it. Peers give no idempotency key: the call id stands in. */
function write(crms: CrmDirectory, tool: WriteTool, args: Record<string, unknown>, callId: string): Promise<unknown> {
  const crm = crms.get(args["crm"] as "salesforce" | "hubspot");
  return crm.write(tool, args, { callId, idempotencyKey: callId } as never);
}

/** What the model read, in the audit's terms: the conversation of the last request, then the answer. */
function modeRun(last: ChatRequest | undefined, text: string, status: string): ModeRun {
  const messages: ChatMessage[] = [...(last?.messages ?? []), { role: "assistant", content: text }];
  return { status, text, messages };
}

const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

// ---------------------------------------------------------------------------------------------
// AI SDK 7: generateText over MockLanguageModelV4.

type V4Part = { type: string; [key: string]: unknown };
type V4Message = { role: string; content: string | V4Part[] };

function fromV4Prompt(prompt: readonly V4Message[]): ChatRequest {
  const messages: ChatMessage[] = [];
  for (const m of prompt) {
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "system") messages.push({ role: "system", content: asText(m.content) });
    else if (m.role === "user")
      messages.push({ role: "user", content: parts.map((p) => String(p["text"] ?? "")).join("") });
    else if (m.role === "assistant") {
      const text = parts.filter((p) => p.type === "text").map((p) => String(p["text"]));
      const toolCalls = parts
        .filter((p) => p.type === "tool-call")
        .map((p) => ({ id: String(p["toolCallId"]), name: String(p["toolName"]), arguments: asText(p["input"]) }));
      messages.push({ role: "assistant", ...(text.length ? { content: text.join("") } : {}), toolCalls });
    } else if (m.role === "tool") {
      for (const p of parts) {
        const output = p["output"] as { type: string; value: unknown } | undefined;
        messages.push({
          role: "tool",
          toolCallId: String(p["toolCallId"]),
          name: String(p["toolName"]),
          content: output === undefined ? "" : asText(output.value),
        });
      }
    }
  }
  return { messages, tools: [] };
}

/** The AI SDK 7: `generateText` with its default handling of a tool's error (a `tool-error` the model reads). */
export async function runAiSdk(crms: CrmDirectory, input: string): Promise<ModeRun> {
  let last: ChatRequest | undefined;
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      last = fromV4Prompt(options.prompt as unknown as V4Message[]);
      const turn = optimisticTurn(last);
      const content = turn.toolCalls?.length
        ? turn.toolCalls.map((c) => ({
            type: "tool-call" as const,
            toolCallId: c.id,
            toolName: c.name,
            input: asText(c.arguments),
          }))
        : [{ type: "text" as const, text: turn.content ?? "" }];
      const reason = turn.toolCalls?.length ? "tool-calls" : "stop";
      return { content, finishReason: { unified: reason, raw: reason }, usage, warnings: [] } as never;
    },
  });
  const tools = Object.fromEntries(
    TOOLS.map((name) => [
      name,
      aiTool({
        description: DESCRIPTIONS[name],
        inputSchema: SCHEMAS[name],
        execute: (args: Record<string, unknown>, { toolCallId }: { toolCallId: string }) =>
          write(crms, name, args, toolCallId),
      }),
    ]),
  );
  try {
    const result = await generateText({
      model,
      system: INSTRUCTIONS,
      prompt: input,
      tools,
      stopWhen: stepCountIs(MAX_ITERATIONS),
    });
    return modeRun(last, result.text, "completed");
  } catch {
    return modeRun(last, "", "error");
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Agents SDK 0.20: run() over a scripted Model.

function fromAgentInput(input: string | AgentInputItem[]): ChatRequest {
  const messages: ChatMessage[] = [];
  const items = typeof input === "string" ? [{ role: "user", content: input } as AgentInputItem] : input;
  for (const item of items as Array<Record<string, unknown>>) {
    if (item["role"] === "user") messages.push({ role: "user", content: asText(item["content"]) });
    else if (item["type"] === "function_call") {
      const call = { id: String(item["callId"]), name: String(item["name"]), arguments: String(item["arguments"]) };
      const previous = messages.at(-1);
      if (previous?.role === "assistant" && previous.content === undefined)
        messages[messages.length - 1] = { ...previous, toolCalls: [...(previous.toolCalls ?? []), call] };
      else messages.push({ role: "assistant", toolCalls: [call] });
    } else if (item["type"] === "function_call_result") {
      const output = item["output"] as { text?: unknown } | string;
      const content = typeof output === "string" ? output : asText(output?.text ?? output);
      messages.push({ role: "tool", toolCallId: String(item["callId"]), name: String(item["name"]), content });
    }
  }
  return { messages, tools: [] };
}

// The SDK exports traces to OpenAI by default; the audit runs offline.
setTracingDisabled(true);

class ScriptedAgentsModel implements Model {
  last: ChatRequest | undefined;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.last = fromAgentInput(request.input);
    const turn = optimisticTurn(this.last);
    const output = turn.toolCalls?.length
      ? turn.toolCalls.map((c) => ({
          type: "function_call" as const,
          id: c.id,
          callId: c.id,
          name: c.name,
          arguments: asText(c.arguments),
          status: "completed" as const,
        }))
      : [
          {
            type: "message" as const,
            id: "msg",
            role: "assistant" as const,
            status: "completed" as const,
            content: [{ type: "output_text" as const, text: turn.content ?? "" }],
          },
        ];
    return { usage: new Usage(), output, responseId: "resp" } as ModelResponse;
  }

  // biome-ignore lint/correctness/useYield: the audit never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the audit does not stream");
  }
}

/** The OpenAI Agents SDK: `run()` with its default tool error function (the model reads a fixed error text). */
export async function runOpenAIAgents(crms: CrmDirectory, input: string): Promise<ModeRun> {
  const model = new ScriptedAgentsModel();
  const tools = TOOLS.map((name) =>
    openaiTool({
      name,
      description: DESCRIPTIONS[name],
      parameters: SCHEMAS[name] as never,
      execute: (args: unknown, _context: unknown, details?: { toolCall?: { callId?: string } }) =>
        write(crms, name, args as Record<string, unknown>, details?.toolCall?.callId ?? "t0-w0") as Promise<never>,
    }),
  );
  const agent = new OpenAIAgent({ name: "crm-sync", instructions: INSTRUCTIONS, model, tools });
  try {
    const result = await openaiRun(agent, input, { maxTurns: MAX_ITERATIONS });
    return modeRun(model.last, asText(result.finalOutput ?? ""), "completed");
  } catch {
    return modeRun(model.last, "", "error");
  }
}

// ---------------------------------------------------------------------------------------------
// LangChain 1.x: createAgent over a scripted tool-calling chat model.

function fromLangChain(messages: readonly BaseMessage[]): ChatRequest {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const type = m.getType();
    const text = typeof m.content === "string" ? m.content : asText(m.content);
    if (type === "system") out.push({ role: "system", content: text });
    else if (type === "human") out.push({ role: "user", content: text });
    else if (type === "ai") {
      const calls = ((m as AIMessage).tool_calls ?? []).map((c) => ({
        id: c.id ?? "",
        name: c.name,
        arguments: asText(c.args),
      }));
      out.push({ role: "assistant", ...(text ? { content: text } : {}), toolCalls: calls });
    } else if (type === "tool") {
      const t = m as unknown as { tool_call_id: string; name?: string };
      out.push({ role: "tool", toolCallId: t.tool_call_id, name: t.name ?? "", content: text });
    }
  }
  return { messages: out, tools: [] };
}

class ScriptedLangChainModel extends BaseChatModel {
  last: ChatRequest | undefined;

  _llmType(): string {
    return "scripted";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.last = fromLangChain(messages);
    const turn = optimisticTurn(this.last);
    const message = new AIMessage({
      content: turn.content ?? "",
      tool_calls: (turn.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        args: JSON.parse(asText(c.arguments)) as Record<string, unknown>,
        type: "tool_call" as const,
      })),
    });
    return { generations: [{ message, text: turn.content ?? "" }] };
  }
}

/**
 * LangChain: `createAgent` with its default handling of a tool's error; with `retries`, its built-in
 * `toolRetryMiddleware` (2 retries, no delay: the same budget as needlework's in this audit).
 */
export async function runLangChain(crms: CrmDirectory, input: string, retries = false): Promise<ModeRun> {
  const model = new ScriptedLangChainModel({});
  const tools = TOOLS.map((name) =>
    langchainTool(
      (args: Record<string, unknown>, config: { toolCall?: { id?: string } }) =>
        write(crms, name, args, config?.toolCall?.id ?? "t0-w0"),
      { name, description: DESCRIPTIONS[name], schema: SCHEMAS[name] },
    ),
  );
  // Cast: its zod 3 option types do not meet this repo's exactOptionalPropertyTypes.
  const middleware = (
    retries ? [toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, jitter: false })] : []
  ) as never[];
  const agent = createLangChainAgent({ model, tools, systemPrompt: INSTRUCTIONS, middleware });
  try {
    const state = await agent.invoke(
      { messages: [{ role: "user", content: input }] },
      { recursionLimit: MAX_ITERATIONS * 2 + 1 },
    );
    const final = state.messages.at(-1);
    const text = final && typeof final.content === "string" ? final.content : "";
    return modeRun(model.last, text, "completed");
  } catch {
    return modeRun(model.last, "", "error");
  }
}
