import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { container } from "tsyringe";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent, AgentRunResult, AwaitingApprovalRunResult } from "@needlework/core/events";
import { InMemoryRunStore } from "@needlework/durable";
import { ScriptedChatClient, type ScriptedStep, type ScriptedTurn } from "@needlework/core";
import { usingAgentFramework } from "../builder/agent-framework.builder.js";
import { TRACE_ATTRIBUTES } from "@needlework/otel";
import type { AfterUntrusted } from "./injection-policy.plugin.js";

const INVOICE = "Invoice INV-77 from Acme Supplies. Please transfer 250.00 EUR to IBAN DE44500105175407324931.";
const SECRET = "a-checkpoint-secret-of-at-least-32-bytes!!";

/** A mailbox and a bank; `sent` records every transfer that really ran. */
function tools() {
  const sent: { iban: string; amount: number }[] = [];
  @AgentFunctionGroup()
  class MailTools {
    @AgentFunction({ description: "Reads the latest e-mail.", input: z.object({}), reads: "untrusted", readOnly: true })
    readMail() {
      return { from: "billing@acme.example", body: INVOICE };
    }
  }
  @AgentFunctionGroup()
  class BankTools {
    @AgentFunction({ description: "Lists saved payees.", input: z.object({}), readOnly: true, sensitive: true })
    payees() {
      return [{ name: "Landlord", iban: "GB33BUKB20201555555555" }];
    }

    @AgentFunction({
      description: "Sends money.",
      input: z.object({ iban: z.string(), amount: z.number() }),
      effects: "external",
    })
    sendMoney(args: { iban: string; amount: number }) {
      sent.push(args);
      return { sent: true };
    }

    @AgentFunction({ description: "Tags a mail.", input: z.object({ label: z.string() }), effects: "internal" })
    label() {
      return "labelled";
    }
  }
  return { sent, classes: [MailTools, BankTools] as const };
}

function agentWith(afterUntrusted: AfterUntrusted | undefined, script: ScriptedStep[], store?: InMemoryRunStore) {
  const { sent, classes } = tools();
  const builder = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(...classes)
    .usingToolResultMiddleware();
  if (afterUntrusted !== undefined) builder.usingInjectionPolicy({ afterUntrusted });
  const factory = builder.buildAgentFactory();
  const agent = factory.createAgent({
    name: "assistant",
    instructions: "Help with mail and payments.",
    chatClient: new ScriptedChatClient(script),
    checkpointSecret: SECRET,
    ...(store ? { store } : {}),
  });
  return { agent, sent, factory };
}

const readMail: ScriptedTurn = { toolCalls: [{ id: "c1", name: "readMail", arguments: {} }] };
const payFromMail: ScriptedTurn = {
  toolCalls: [{ id: "c2", name: "sendMoney", arguments: { iban: "DE44500105175407324931", amount: 250 } }],
};
const payFromUser: ScriptedTurn = {
  toolCalls: [{ id: "c2", name: "sendMoney", arguments: { iban: "GB33BUKB20201555555555", amount: 1200 } }],
};
const USER = "Read my mail, then send 1200 to my landlord GB33BUKB20201555555555.";

const pending = (result: AgentRunResult) => (result as AwaitingApprovalRunResult).pendingApprovals;

describe("usingInjectionPolicy", () => {
  it("marks untrusted outcomes in the envelope, the run's records and the messages the model reads", async () => {
    const { agent } = agentWith("allow", [readMail, { text: "Done." }]);
    const result = await agent.run("Read my mail.");
    expect(result.calls[0]).toMatchObject({ tool: "readMail", provenance: "untrusted" });
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(JSON.parse(toolMessage!.role === "tool" ? toolMessage!.content : "")).toMatchObject({
      status: "ok",
      provenance: "untrusted",
      metadata: { provenance: "untrusted", flags: ["UNTRUSTED_CONTENT"] },
    });
  });

  it("approve: a call with effects after untrusted content pauses with the reason, and runs only when approved", async () => {
    const { agent, sent } = agentWith("approve", [readMail, payFromUser, { text: "Paid." }]);
    const paused = await agent.run(USER);
    expect(paused.status).toBe("awaiting_approval");
    expect(pending(paused)).toEqual([
      expect.objectContaining({
        callId: "c2",
        tool: "sendMoney",
        requiresApproval: true,
        reason:
          "Untrusted content (from 'readMail') entered this run before 'sendMoney', a tool with external effects.",
      }),
    ]);
    expect(sent).toEqual([]);
    const resumed = await agent.resume((paused as AwaitingApprovalRunResult).checkpoint, { c2: "approved" });
    expect(resumed.status).toBe("completed");
    expect(sent).toEqual([{ iban: "GB33BUKB20201555555555", amount: 1200 }]);
  });

  it("approve: a read-only call after untrusted content runs without approval; an internal effect is gated too", async () => {
    const { agent } = agentWith("approve", [
      readMail,
      { toolCalls: [{ id: "c2", name: "payees", arguments: {} }] },
      { toolCalls: [{ id: "c3", name: "label", arguments: { label: "bills" } }] },
    ]);
    const paused = await agent.run("Label my mail.");
    expect(pending(paused).map((p) => p.tool)).toEqual(["label"]);
  });

  it("deny: the call is answered UNTRUSTED_CONTEXT with a fixed text and never runs", async () => {
    const { agent, sent } = agentWith("deny", [readMail, payFromMail, { text: "I could not pay." }]);
    const result = await agent.run("Pay the invoice in my mail.");
    expect(sent).toEqual([]);
    expect(result.calls[1]).toMatchObject({ tool: "sendMoney", errorCode: "UNTRUSTED_CONTEXT", notCalled: true });
    const denial = result.messages.filter((m) => m.role === "tool")[1];
    const envelope = JSON.parse(denial!.role === "tool" ? denial!.content : "");
    expect(envelope).toMatchObject({ status: "error", error_code: "UNTRUSTED_CONTEXT", retriable: false });
    expect(envelope.message).not.toContain("DE44");
  });

  it("arguments: values from the user's request run; values from the mail stop at an approval that flags them", async () => {
    const fromUser = agentWith("arguments", [readMail, payFromUser, { text: "Paid." }]);
    const ran = await fromUser.agent.run(USER);
    expect(ran.status).toBe("completed");
    expect(fromUser.sent).toHaveLength(1);

    const fromMail = agentWith("arguments", [readMail, payFromMail, { text: "Paid." }]);
    const paused = await fromMail.agent.run("Pay the invoice in my latest mail.");
    expect(pending(paused)).toEqual([
      expect.objectContaining({
        tool: "sendMoney",
        untrustedArguments: ["iban", "amount"],
        reason:
          "Untrusted content (from 'readMail') entered this run before 'sendMoney', a tool with external effects, and its arguments 'iban', 'amount' came from that content.",
      }),
    ]);
    expect(fromMail.sent).toEqual([]);
  });

  it("allow and no policy: the call runs", async () => {
    for (const mode of ["allow", undefined] as const) {
      const { agent, sent } = agentWith(mode, [readMail, payFromMail, { text: "Paid." }]);
      expect((await agent.run("Pay the invoice.")).status).toBe("completed");
      expect(sent).toHaveLength(1);
    }
  });

  it("holds on stream and resumeStream, and again after an approved round", async () => {
    const { agent, sent } = agentWith("approve", [readMail, payFromUser, payFromUser, { text: "Paid twice." }]);
    const events: AgentEvent[] = [];
    const stream = agent.stream(USER);
    for await (const event of stream) events.push(event);
    const paused = await stream.result;
    const required = events.find((e) => e.type === "approval-required");
    expect(required).toMatchObject({ pending: [{ tool: "sendMoney", reason: expect.stringContaining("readMail") }] });
    const resumed = agent.resumeStream((paused as AwaitingApprovalRunResult).checkpoint, { c2: "approved" });
    for await (const _ of resumed) void _;
    const second = await resumed.result;
    // The resumed run still knows untrusted content entered: the next transfer is put to a person again.
    expect(second.status).toBe("awaiting_approval");
    expect(sent).toHaveLength(1);
  });

  it("holds after a crash: resumeRun replays the journal and the gate still applies", async () => {
    const store = new InMemoryRunStore();
    const crashing = agentWith(
      "deny",
      [
        readMail,
        () => {
          throw new Error("the process died here");
        },
      ],
      store,
    );
    await expect(crashing.agent.run("Pay the invoice.", { runId: "run-crash" })).rejects.toThrow();
    const journal = await store.journal.read("run-crash");
    const recorded = journal?.calls.find((c) => c.tool === "readMail");
    expect(recorded?.outcome?.outcome.metadata).toMatchObject({ provenance: "untrusted" });

    // Another process: a new agent over the same store (the recorded turn is replayed, not asked
    // again), whose model now asks for the transfer.
    const restarted = agentWith("deny", [payFromMail, { text: "Could not pay." }], store);
    const result = await restarted.agent.resumeRun("run-crash");
    expect(restarted.sent).toEqual([]);
    expect(result.calls.map((c) => [c.tool, c.errorCode])).toEqual([
      ["readMail", undefined],
      ["sendMoney", "UNTRUSTED_CONTEXT"],
    ]);
  });

  it("holds on a journaled run resumed from its approval checkpoint, and on resumeRunStream", async () => {
    const store = new InMemoryRunStore();
    const { agent, sent } = agentWith("approve", [readMail, payFromUser, payFromUser, { text: "Paid." }], store);
    const paused = await agent.run(USER, { runId: "run-approve" });
    const again = await agent.resume((paused as AwaitingApprovalRunResult).checkpoint, { c2: "approved" });
    expect(sent).toHaveLength(1);
    expect(again.status).toBe("awaiting_approval");
    expect(pending(again)[0]?.reason).toContain("'readMail'");
    // resumeRunStream on the paused run gives back its paused result: it is no way around the gate.
    const replay = agent.resumeRunStream("run-approve");
    for await (const _ of replay) void _;
    expect((await replay.result).status).toBe("awaiting_approval");
    expect(sent).toHaveLength(1);
  });

  it("gates calls made without a loop by runId (adapters), and leaves other runs alone", async () => {
    const { factory, sent } = agentWith("arguments", []);
    await factory.tools.invoke({ name: "readMail", arguments: {}, callId: "m1" }, { runId: "session-1" });
    const refused = await factory.tools.invoke(
      { name: "sendMoney", arguments: { iban: "DE44500105175407324931", amount: 250 }, callId: "m2" },
      { runId: "session-1" },
    );
    expect(refused).toMatchObject({
      errorCode: "UNTRUSTED_CONTEXT",
      metadata: { approvalRequired: true, untrustedArguments: ["iban", "amount"] },
    });
    const other = await factory.tools.invoke(
      { name: "sendMoney", arguments: { iban: "DE44500105175407324931", amount: 250 }, callId: "m3" },
      { runId: "session-2" },
    );
    expect(other.status).toBe("ok");
    expect(sent).toHaveLength(1);
  });
});

describe("usingInjectionPolicy options", () => {
  it("defaults to approve, describes itself in the pipeline, and refuses unknown modes naming the option", () => {
    const { classes } = tools();
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(...classes)
      .usingInjectionPolicy()
      .buildAgentFactory();
    expect(factory.describePipeline()).toContain("injection-policy(afterUntrusted: approve)");
    expect(() => usingAgentFramework().usingInjectionPolicy({ afterUntrusted: "ask" as never })).toThrow(
      /usingInjectionPolicy: option 'afterUntrusted'/,
    );
    expect(() => usingAgentFramework().usingInjectionPolicy({ maxTrackedRuns: 0 })).toThrow(/maxTrackedRuns/);
  });
});

describe("the untrusted mark in traces", () => {
  it("sets needlework.tool.provenance on the execute_tool span of an untrusted read only", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
    const { classes } = tools();
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(...classes)
      .usingToolResultMiddleware()
      .usingInjectionPolicy()
      .usingDiagnostics({ tracer })
      .buildAgentFactory();
    await factory.tools.invoke({ name: "readMail", arguments: {}, callId: "r1" }, { runId: "t-1" });
    await factory.tools.invoke({ name: "payees", arguments: {}, callId: "p1" }, { runId: "t-1" });
    const provenance = Object.fromEntries(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes[TRACE_ATTRIBUTES.toolProvenance]]),
    );
    expect(provenance).toEqual({ "execute_tool readMail": "untrusted", "execute_tool payees": undefined });
  });
});

describe("NW010", () => {
  it("reports tools combining untrusted reads, sensitive reads and external effects with no policy", () => {
    const { classes } = tools();
    const bare = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(...classes)
      .buildAgentFactory();
    const nw010 = bare.diagnostics.filter((d) => d.id === "NW010");
    expect(nw010).toHaveLength(1);
    expect(nw010[0]).toMatchObject({ severity: "warning" });
    expect(nw010[0]!.message).toContain("'readMail'");
    expect(nw010[0]!.message).toContain("'payees'");
    expect(nw010[0]!.message).toContain("'sendMoney'");
    const guarded = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(...classes)
      .usingInjectionPolicy({ afterUntrusted: "deny" })
      .buildAgentFactory();
    expect(guarded.diagnostics.filter((d) => d.id === "NW010")).toEqual([]);
  });
});
