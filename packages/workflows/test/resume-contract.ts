// Shared test scenarios for every AgentStore (memory, file, PostgreSQL): imported by their tests.
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  createToolInvoker,
  type ToolContext,
} from "@needlework/core";
import { container } from "tsyringe";
import { expect, it } from "vitest";
import { z } from "zod";
import type { Agent } from "../src/agent/agent.js";
import type { CreateAgentOptions } from "../src/agent/agent.options.js";
import { createAgent } from "../src/agent/agent.js";
import { type ScriptedStep, ScriptedChatClient } from "@needlework/core";
import type { AgentStore } from "@needlework/durable";
import { RunStoreError } from "@needlework/durable";

/** A fake CRM: counts executions, remembers idempotency keys, and can hang calls until aborted. */
export class FakeCrm {
  readonly executions: { tool: string; key: string }[] = [];
  hang = new Set<string>();
  private readonly started = new Map<string, () => void>();
  private readonly startedPromises = new Map<string, Promise<void>>();

  constructor() {
    for (const tool of ["upsertContact", "sendEmail"])
      this.startedPromises.set(tool, new Promise((resolve) => this.started.set(tool, resolve)));
  }

  /** Resolves when `tool` has started. */
  whenStarted(tool: string): Promise<void> {
    return this.startedPromises.get(tool)!;
  }

  async execute(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    this.executions.push({ tool, key: ctx.idempotencyKey });
    this.started.get(tool)?.();
    if (this.hang.has(tool)) {
      await new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
      );
    }
    return { tool, ...args };
  }

  count(tool: string): number {
    return this.executions.filter((e) => e.tool === tool).length;
  }
}

@AgentFunctionGroup()
class ResumeCrmTools {
  constructor(private readonly crm: FakeCrm) {}

  @AgentFunction({ description: "Looks up a contact.", input: z.object({ id: z.string() }), readOnly: true })
  lookupContact(args: Record<string, unknown>, ctx: ToolContext) {
    return this.crm.execute("lookupContact", args, ctx);
  }

  @AgentFunction({
    description: "Creates or updates a contact.",
    input: z.object({ id: z.string() }),
    idempotent: true,
  })
  upsertContact(args: Record<string, unknown>, ctx: ToolContext) {
    return this.crm.execute("upsertContact", args, ctx);
  }

  @AgentFunction({ description: "Sends an email.", input: z.object({ to: z.string() }) })
  sendEmail(args: Record<string, unknown>, ctx: ToolContext) {
    return this.crm.execute("sendEmail", args, ctx);
  }
}

/** An agent over the fake CRM tools, a scripted model (or the given one) and `store`. */
export function resumeAgent(
  crm: FakeCrm,
  store: AgentStore,
  steps: readonly ScriptedStep[],
  chatClient?: ChatClient,
  options: Partial<Pick<CreateAgentOptions, "checkpointSecret" | "approvalPolicy" | "onIterationStart">> = {},
): { agent: Agent; model: ScriptedChatClient } {
  const scope = container.createChildContainer();
  scope.registerInstance(FakeCrm, crm);
  const invoker = createToolInvoker(scope, { functions: [ResumeCrmTools] });
  const model = new ScriptedChatClient([...steps]);
  return {
    agent: createAgent(
      { invoker },
      { name: "crm-sync", instructions: "Sync contacts.", chatClient: chatClient ?? model, store, ...options },
    ),
    model,
  };
}

/** A model for many concurrent runs: upserts the contact named in the user message, then answers. */
export const upsertThenAnswer: ChatClient = {
  async complete({ messages }) {
    if (messages.some((m) => m.role === "tool")) return { message: { content: "Done." } };
    const user = messages.find((m) => m.role === "user");
    const id = /c\d+/.exec(user?.role === "user" ? user.content : "")?.[0] ?? "c0";
    return { message: { toolCalls: [{ id: "call_1", name: "upsertContact", arguments: { id } }] } };
  },
};

const round: ScriptedStep = {
  toolCalls: [
    { name: "lookupContact", arguments: { id: "c1" } },
    { name: "upsertContact", arguments: { id: "c1" } },
    { name: "sendEmail", arguments: { to: "c1@example.com" } },
  ],
};

/** The kill-and-resume scenarios every AgentStore must pass; `open` gives two handles on one store. */
export function resumeContract(open: () => Promise<{ first: AgentStore; second: AgentStore }>): void {
  it("resumeRun elsewhere: outcomes reused, idempotent in-flight calls re-run, else OUTCOME_UNKNOWN", async () => {
    const { first, second } = await open();
    const crm = new FakeCrm();
    crm.hang = new Set(["upsertContact", "sendEmail"]);
    const dying = resumeAgent(crm, first, [round, { text: "never reached" }]);
    const kill = new AbortController();
    const running = dying.agent.run("Sync c1.", { signal: kill.signal, runId: "run_resume_1" });
    await Promise.all([crm.whenStarted("upsertContact"), crm.whenStarted("sendEmail")]);
    // lookupContact has settled; give its journal write a moment to land before the "crash".
    await expect
      .poll(async () => (await first.journal.read("run_resume_1"))?.calls.filter((c) => c.outcome).length)
      .toBe(1);
    kill.abort(new DOMException("process killed", "AbortError"));
    await expect(running).rejects.toMatchObject({ name: "AbortError" });

    crm.hang.clear();
    const fresh = resumeAgent(crm, second, [{ text: "c1 synced; the email may not have been sent." }]);
    const result = await fresh.agent.resumeRun("run_resume_1");

    expect(result.status).toBe("completed_with_failures");
    expect(crm.count("lookupContact")).toBe(1);
    expect(crm.executions.filter((e) => e.tool === "upsertContact")).toEqual([
      { tool: "upsertContact", key: "run_resume_1:call_1_2" },
      { tool: "upsertContact", key: "run_resume_1:call_1_2" },
    ]);
    expect(crm.count("sendEmail")).toBe(1);
    const seen = fresh.model.requests[0]!.messages.filter((m) => m.role === "tool");
    expect(seen.map((m) => (m.role === "tool" ? m.toolCallId : ""))).toEqual(["call_1_1", "call_1_2", "call_1_3"]);
    const email = JSON.parse(seen[2]!.role === "tool" ? seen[2]!.content : "{}") as Record<string, unknown>;
    expect(email).toMatchObject({ status: "error", error_code: "OUTCOME_UNKNOWN", retriable: false });
    expect(String(email["suggestion"])).toContain("Check whether it took effect");

    const journaled = await second.journal.read("run_resume_1");
    expect(journaled?.end?.status).toBe("completed_with_failures");
    expect(journaled?.turns).toHaveLength(2);
    // Calls of one round start concurrently: their journal order is the order their writes landed.
    expect(journaled?.calls.map((c) => [c.tool, c.outcome?.outcome.status]).sort()).toEqual([
      ["lookupContact", "ok"],
      ["sendEmail", "error"],
      ["upsertContact", "ok"],
    ]);
  });

  it("a finished run resumes to its recorded result without asking the model or running a tool", async () => {
    const { first, second } = await open();
    const crm = new FakeCrm();
    const { agent } = resumeAgent(crm, first, [round, { text: "Synced." }]);
    const done = await agent.run("Sync c1.", { runId: "run_resume_2" });
    const again = resumeAgent(crm, second, []);
    const replayed = await again.agent.resumeRun("run_resume_2");
    expect(replayed).toMatchObject({ status: done.status, text: "Synced.", runId: "run_resume_2" });
    expect(again.model.requests).toHaveLength(0);
    expect(crm.executions).toHaveLength(3);
  });

  it("refuses an unknown run id and a run id already journaled", async () => {
    const { first } = await open();
    const { agent } = resumeAgent(new FakeCrm(), first, [{ text: "ok" }]);
    await expect(agent.resumeRun("run_missing")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
    await agent.run("hi", { runId: "run_resume_3" });
    const error = await agent.run("hi", { runId: "run_resume_3" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunStoreError);
    expect(error).toMatchObject({ code: "RUN_EXISTS" });
  });
}
