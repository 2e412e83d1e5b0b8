// Each client of the remote audit, at its documented defaults, driven by the same scripted model
// (`ScriptedStep`) and read through its own channel: what its agent loop hands the model after a
// tool call, and whether that carries the framework's native error marker.
// - needlework: connectMcpServer + the documented stack of docs/remote-tools.md (resilience, the
//   tool-result middleware, the injection policy at its default), run by its own agent loop; the
//   model reads the tool message, the marker is the envelope's `status`.
// - OpenAI Agents JS: MCPServerStreamableHttp + getAllMcpTools; FunctionTool.invoke is what the
//   runner calls (its default errorFunction turns a throw into text); no marker reaches the model.
// - AI SDK: @ai-sdk/mcp's createMCPClient tools; generateText sends a throw from execute to the
//   model as a `tool-error` part (the marker), a returned result through the tool's toModelOutput.
// - LangChain: @langchain/mcp-adapters' MultiServerMCPClient tools invoked with a ToolCall; the
//   agent's ToolNode turns a throw into a ToolMessage with `status: "error"` (the marker) whose text
//   is `${error}\n Please fix your mistakes.` (its defaultHandleToolErrors).
// - @toolbox-sdk/core: ToolboxClient.loadToolset; a tool is an async function returning a string
//   and throwing on failure: no loop of its own, so a throw ends the turn (lost).
import { createMCPClient } from "@ai-sdk/mcp";
import type { ChatClient, ChatMessage } from "@needlework/core";
import { connectMcpServer } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { Agent, getAllMcpTools, MCPServerStreamableHttp, RunContext } from "@openai/agents";
import { ToolboxClient } from "@toolbox-sdk/core";
import { container } from "tsyringe";

/** A tool result as the model is handed it. */
export interface Seen {
  readonly text: string;
  /** The framework's native error marker is set. */
  readonly flagged: boolean;
}

/** One call the scripted model asks for, by the tool's name on the server. */
export interface Step {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The scripted model: given what it has read so far, its next call, or `undefined` to finish. */
export type ScriptedStep = (seen: readonly Seen[]) => Step | undefined;

/** What one turn gave: every result read, and whether a thrown exception ended it. */
export interface TurnRecord {
  readonly seen: readonly Seen[];
  readonly lost: boolean;
}

/** A client of the audit: plays a turn of the scripted model through its own channel. */
export interface RemoteChannel {
  readonly name: string;
  turn(model: ScriptedStep): Promise<TurnRecord>;
  close(): Promise<void>;
}

/** The peers' loop: call, read, until the model stops; a throw out of the channel loses the turn. */
async function loop(model: ScriptedStep, call: (step: Step) => Promise<Seen>): Promise<TurnRecord> {
  const seen: Seen[] = [];
  for (let step = model(seen); step !== undefined; step = model(seen)) {
    try {
      seen.push(await call(step));
    } catch {
      return { seen, lost: true };
    }
  }
  return { seen, lost: false };
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const textOf = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/**
 * needlework's documented stack; `injectionPolicy: false` leaves `usingInjectionPolicy()` out, to
 * show what the envelope alone does.
 */
export async function needleworkChannel(toolsetUrl: string, injectionPolicy = true): Promise<RemoteChannel> {
  const shop = await connectMcpServer("shop", { url: toolsetUrl });
  const builder = usingAgentFramework(container.createChildContainer())
    .addTools(shop.tools)
    .usingResilience()
    .usingToolResultMiddleware();
  const factory = (injectionPolicy ? builder.usingInjectionPolicy() : builder).buildAgentFactory({
    printDiagnostics: false,
  });
  return {
    name: injectionPolicy ? "needlework" : "needlework, no injection policy",
    async turn(model) {
      const seen: Seen[] = [];
      let n = 0;
      const chatClient: ChatClient = {
        async complete({ messages }) {
          // Every tool message so far, in order (a run-health note may follow the last one).
          seen.length = 0;
          for (const m of messages as readonly ChatMessage[]) {
            if (m.role !== "tool") continue;
            const status = /"status"\s*:\s*"([a-z_]+)"/.exec(m.content)?.[1];
            seen.push({ text: m.content, flagged: status !== undefined && status !== "ok" });
          }
          const step = model(seen);
          if (step === undefined) return { message: { content: "Done." } };
          n++;
          return { message: { toolCalls: [{ id: `call_${n}`, name: `shop_${step.tool}`, arguments: step.args }] } };
        },
      };
      const agent = factory.createAgent({ name: "audit", instructions: "Help.", chatClient });
      try {
        await agent.run("Go.");
      } catch {
        return { seen, lost: true };
      }
      return { seen, lost: false };
    },
    close: () => shop.close(),
  };
}

export async function openaiChannel(toolsetUrl: string): Promise<RemoteChannel> {
  const server = new MCPServerStreamableHttp({ url: toolsetUrl, name: "shop" });
  await server.connect();
  const runContext = new RunContext();
  const tools = await getAllMcpTools({ mcpServers: [server], runContext, agent: new Agent({ name: "audit" }) });
  return {
    name: "OpenAI Agents JS",
    turn: (model) =>
      loop(model, async (step) => {
        const tool = tools.find((t) => t.name === step.tool);
        if (tool?.type !== "function") throw new Error(`no tool ${step.tool}`);
        const output = await tool.invoke(runContext, JSON.stringify(step.args));
        const item = output as { type?: unknown; text?: unknown };
        return { text: item.type === "text" ? String(item.text) : textOf(output), flagged: false };
      }),
    close: () => server.close(),
  };
}

export async function aiSdkChannel(toolsetUrl: string): Promise<RemoteChannel> {
  const client = await createMCPClient({ transport: { type: "http", url: toolsetUrl } });
  const tools = await client.tools();
  let n = 0;
  return {
    name: "AI SDK @ai-sdk/mcp",
    turn: (model) =>
      loop(model, async (step) => {
        const tool = tools[step.tool];
        if (tool?.execute === undefined) throw new Error(`no tool ${step.tool}`);
        try {
          const toolCallId = `call_${++n}`;
          const output: unknown = await tool.execute(step.args, { toolCallId, messages: [], context: {} });
          // What generateText hands the model: the tool's toModelOutput (@ai-sdk/mcp's keeps the
          // content's text parts and drops `isError`).
          type Output = Parameters<NonNullable<typeof tool.toModelOutput>>[0]["output"];
          const shown = (await tool.toModelOutput?.({ toolCallId, input: step.args, output: output as Output })) as
            | { type: string; value: unknown }
            | undefined;
          if (shown?.type === "content" && Array.isArray(shown.value))
            return {
              text: (shown.value as { type: string; text?: string }[])
                .map((part) => (part.type === "text" ? (part.text ?? "") : JSON.stringify(part)))
                .join("\n"),
              flagged: false,
            };
          return { text: textOf(shown?.value ?? output), flagged: false };
        } catch (error) {
          return { text: message(error), flagged: true };
        }
      }),
    close: () => client.close(),
  };
}

export async function langchainChannel(toolsetUrl: string): Promise<RemoteChannel> {
  const client = new MultiServerMCPClient({ mcpServers: { shop: { transport: "http", url: toolsetUrl } } });
  const tools = await client.getTools();
  let n = 0;
  return {
    name: "LangChain mcp-adapters",
    turn: (model) =>
      loop(model, async (step) => {
        const tool = tools.find((t) => t.name === step.tool || t.name.endsWith(`__${step.tool}`));
        if (tool === undefined) throw new Error(`no tool ${step.tool}`);
        try {
          const result = (await tool.invoke({
            name: tool.name,
            args: step.args,
            id: `call_${++n}`,
            type: "tool_call",
          })) as {
            content?: unknown;
            status?: unknown;
          };
          return { text: textOf(result.content), flagged: result.status === "error" };
        } catch (error) {
          return { text: `${String(error)}\n Please fix your mistakes.`, flagged: true };
        }
      }),
    close: () => client.close(),
  };
}

export async function toolboxCoreChannel(baseUrl: string): Promise<RemoteChannel> {
  const client = new ToolboxClient(baseUrl);
  const tools = await client.loadToolset("shop");
  return {
    name: "@toolbox-sdk/core ToolboxClient",
    turn: (model) =>
      loop(model, async (step) => {
        const tool = tools.find((t) => t.getName() === step.tool);
        if (tool === undefined) throw new Error(`no tool ${step.tool}`);
        return { text: textOf(await tool(step.args)), flagged: false };
      }),
    close: async () => undefined,
  };
}
