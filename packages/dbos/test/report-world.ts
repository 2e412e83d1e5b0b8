// Test support (not exported): an agent whose one tool returns a 5 MB report (45,000 rows), run inside
// a durable engine with or without usingArtifacts(). Its scripted model reads the first page of the
// stored report with read_artifact, then answers with the page it read; the test can hold the model's
// second turn, so the engine's process dies between two steps (after the report's outcome is recorded).
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, type ChatClient, type ChatMessage } from "@needlework/core";
import type { ArtifactStore, DurableExecutionFactory } from "@needlework/durable";
import { type Agent, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { z } from "zod";

/** Rows of the report: about 5.2 MB of JSON. */
export const REPORT_ROWS = 45_000;

/** How often the report's body ran in this process. */
export const reportRuns = { count: 0 };

@AgentFunctionGroup()
class ReportTools {
  @AgentFunction({ description: "Every order of the quarter.", input: z.object({}) })
  report() {
    reportRuns.count++;
    return Array.from({ length: REPORT_ROWS }, (_, id) => ({
      id,
      customer: `customer-${id % 997}`,
      email: `c${id % 997}@example.com`,
      total: Math.round(id * 13.7) / 10,
      note: "paid on delivery, no issues reported",
    }));
  }
}

/** Holds the model's second turn once, when armed: the moment the test stops the engine's process. */
export class TurnGate {
  private armed: (() => void) | undefined;

  /** Arms the gate; resolves when the model's second turn reached it (and hangs there for good). */
  arm(): Promise<void> {
    return new Promise((resolve) => (this.armed = resolve));
  }

  /** In the model: a never-settling answer when armed (the process "dies" with it), else nothing. */
  hold(): Promise<never> | undefined {
    const reached = this.armed;
    if (reached === undefined) return undefined;
    this.armed = undefined;
    reached();
    return new Promise<never>(() => undefined);
  }
}

const lastTool = (messages: readonly ChatMessage[]): string =>
  messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";

/** The scripted model: the report, then its first page (when stored), then the text it read last. */
export function reportModel(gate: TurnGate): ChatClient {
  return {
    async complete({ messages }) {
      const turns = messages.filter((m) => m.role === "assistant").length;
      if (turns === 0) return { message: { toolCalls: [{ id: "report_0", name: "report", arguments: {} }] } };
      if (turns === 1) {
        await gate.hold();
        const envelope = JSON.parse(lastTool(messages)) as { artifact?: { id: string } };
        if (envelope.artifact !== undefined) {
          const args = { id: envelope.artifact.id, offset: 0, limit: 3 };
          return { message: { toolCalls: [{ id: "read_1", name: "read_artifact", arguments: args }] } };
        }
      }
      return { message: { content: lastTool(messages) } };
    },
  };
}

/** The agent over an engine's execution; with `artifacts`, results past 64 KB are stored there. */
export function reportAgent(execution: DurableExecutionFactory, gate: TurnGate, artifacts?: ArtifactStore): Agent {
  const base = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(ReportTools)
    .usingToolResultMiddleware();
  const builder = artifacts === undefined ? base : base.usingArtifacts({ store: artifacts });
  return builder
    .buildAgentFactory()
    .createAgent({ name: "reports", instructions: "Read the report.", chatClient: reportModel(gate), execution });
}

/** What a run's workflow returns: small, whatever the tool returned. */
export interface ReportSummary {
  readonly status: string;
  readonly text: string;
  readonly calls: readonly { readonly tool: string; readonly status: string; readonly errorCode?: string }[];
}

/** Runs the agent for `runId` and keeps what the checks read. */
export async function runReport(agent: Agent, runId: string): Promise<ReportSummary> {
  const result = await agent.run("How did the quarter go?", { runId });
  return {
    status: result.status,
    text: result.text,
    calls: result.calls.map(({ tool, status, errorCode }) => ({
      tool,
      status,
      ...(errorCode === undefined ? {} : { errorCode }),
    })),
  };
}
