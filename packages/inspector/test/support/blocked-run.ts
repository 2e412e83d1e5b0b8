// A run whose tool is blocked in flight until its call is aborted: what a cancel must end. The tool
// says when its body starts (its call start is journaled by then) and what its signal was aborted with.
import "reflect-metadata";
import { defineTool } from "@needlework/core";
import type { AgentStore } from "@needlework/durable";
import { type Agent, type AgentRunResult, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { z } from "zod";

/** A started run whose `export_ledger` call waits on its signal. */
export interface BlockedRun {
  readonly agent: Agent;
  readonly runId: string;
  /** Resolves when the tool body is running. */
  readonly started: Promise<void>;
  /** Resolves with the reason the tool's signal was aborted with. */
  readonly aborted: Promise<unknown>;
  /** The run's result (`run()` settles once the holder ended it). */
  readonly result: Promise<AgentRunResult>;
}

/** Starts a run over `store` whose one tool call blocks until its signal aborts (a cancel). */
export function startBlockedRun(store: AgentStore, runId: string, agentName = "ledger-export"): BlockedRun {
  let onStarted!: () => void;
  let onAborted!: (reason: unknown) => void;
  const started = new Promise<void>((resolve) => (onStarted = resolve));
  const aborted = new Promise<unknown>((resolve) => (onAborted = resolve));
  const exportLedger = defineTool({
    name: "export_ledger",
    description: "Exports the ledger to the warehouse.",
    input: z.object({ month: z.string().describe("The month, YYYY-MM.") }),
    execute: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener(
          "abort",
          () => {
            onAborted(ctx.signal.reason);
            reject(ctx.signal.reason);
          },
          { once: true },
        );
        onStarted();
      }),
  });
  const factory = usingAgentFramework(container.createChildContainer())
    .addTools(exportLedger)
    .usingToolResultMiddleware()
    .buildAgentFactory();
  const agent = factory.createAgent({
    name: agentName,
    instructions: "Export the ledger.",
    chatClient: new ScriptedChatClient([
      { toolCalls: [{ id: "x1", name: "export_ledger", arguments: { month: "2026-10" } }] },
      { text: "Exported." },
    ]),
    store,
  });
  const result = agent.run("Export October's ledger.", { runId });
  return { agent, runId, started, aborted, result };
}
