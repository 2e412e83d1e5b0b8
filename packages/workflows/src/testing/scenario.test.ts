import { createToolInvoker } from "@needlework/core";
import {
  runScenario,
  ScenarioFailedError,
  ScriptExhaustedError,
  ScriptedChatClient,
} from "@needlework/workflows/testing";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { AdminTools, kitBehaviour, kitBuilder, OrderTools } from "../../test/agent-kit-fixtures.js";
import { createAgent } from "../agent/agent.js";
import { Agent } from "../agent/declared-agent.js";
import { toolResultMiddleware } from "../tool-result/index.js";

@Agent({ name: "support", instructions: "You help with orders.", functionGroups: ["orders"] })
class SupportAgent {}

const lookupScript = [
  { toolCalls: [{ name: "lookupOrder", arguments: { orderId: "ORD-1" } }] },
  { text: "ORD-1 has shipped." },
];

describe("runScenario", () => {
  it("drives a declared agent with a script and passes when calls and outcomes match", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().addAgents(SupportAgent).buildAgentFactory();
    const report = await runScenario({
      factory,
      agent: SupportAgent,
      input: "Where is ORD-1?",
      script: lookupScript,
      expect: {
        status: "completed",
        text: /shipped/,
        calls: [{ tool: "lookupOrder", arguments: '{ "orderId": "ORD-1" }', status: "ok", attempts: 1 }],
        neverCalled: ["refund", "cancelOrder"],
        health: { tools_ok: 1, blocking_failure: false },
      },
    });
    expect(report.passed).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.calls[0]).toMatchObject({
      tool: "lookupOrder",
      arguments: { orderId: "ORD-1" },
      reply: { status: "ok", data: { tool: "lookupOrder", orderId: "ORD-1" } },
    });
    expect(report.model.requests).toHaveLength(2);
  });

  it("builds agents by name, from options, or with a function over the scripted model", async () => {
    const factory = kitBuilder().addAgents(SupportAgent).buildAgentFactory();
    const byName = await runScenario({
      factory,
      agent: "support",
      input: "x",
      script: lookupScript,
      expect: { status: "completed" },
    });
    expect(byName.passed).toBe(true);
    const fromOptions = await runScenario({
      factory,
      agent: { name: "adhoc", instructions: "", functions: [OrderTools] },
      input: "x",
      script: lookupScript,
    });
    expect(fromOptions.passed).toBe(true);
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [OrderTools],
      middleware: [toolResultMiddleware()],
    });
    const fromFunction = await runScenario({
      agent: (chatClient) => createAgent({ invoker }, { name: "fn", instructions: "", chatClient }),
      input: "x",
      script: lookupScript,
      expect: { calls: [{ tool: "lookupOrder" }] },
    });
    expect(fromFunction.passed).toBe(true);
    await expect(runScenario({ agent: SupportAgent, input: "x", script: [] })).rejects.toThrow(
      /runScenario: pass `factory`/,
    );
  });

  it("throws one error listing every mismatch, the calls made and the final text", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    kitBehaviour.set("lookupOrder", () => {
      throw Object.assign(new Error("upstream 503"), { status: 503 });
    });
    const run = runScenario({
      name: "order lookup",
      factory,
      agent: { name: "s", instructions: "", functions: [OrderTools, AdminTools] },
      input: "Where is ORD-1?",
      script: [...lookupScript, { text: "unused" }],
      expect: {
        status: "completed",
        text: "ORD-1 is on its way.",
        calls: [{ tool: "lookupOrder", arguments: { orderId: "ORD-2" }, status: "ok" }, { tool: "cancelOrder" }],
        neverCalled: ["lookupOrder"],
        health: { blocking_failure: false },
      },
    });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ScenarioFailedError);
    expect((error as ScenarioFailedError).code).toBe("SCENARIO_FAILED");
    expect((error as ScenarioFailedError).message).toBe(
      [
        'Scenario "order lookup" failed:',
        '  - status: expected "completed", got "completed_with_failures"',
        '  - text: expected "ORD-1 is on its way.", got "ORD-1 has shipped."',
        '  - calls[0]: expected {"tool":"lookupOrder","arguments":{"orderId":"ORD-2"},"status":"ok"}, got arguments {"orderId":"ORD-1"}, status "error"',
        '  - calls[1]: expected {"tool":"cancelOrder"}, but only 1 call was made',
        "  - neverCalled: 'lookupOrder' was called 1 time (call_1_1)",
        "  - health.blocking_failure: expected false, got true",
        '  - script: 1 of 3 steps were never played (the run ended "completed_with_failures" after 2 model turns)',
        "Calls made:",
        '  1. lookupOrder {"orderId":"ORD-1"} -> error/UPSTREAM_UNAVAILABLE (1 attempt)',
        'Status: completed_with_failures; final text: "ORD-1 has shipped."',
      ].join("\n"),
    );
    expect((error as ScenarioFailedError).report.result.status).toBe("completed_with_failures");
  });

  it("reports instead of throwing with throwOnFailure: false, and flags extra calls", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    const report = await runScenario({
      factory,
      agent: { name: "s", instructions: "" },
      input: "x",
      script: [
        {
          toolCalls: [
            { name: "lookupOrder", arguments: { orderId: "a" } },
            { name: "refund", arguments: { orderId: "a" } },
          ],
        },
        { text: "done" },
      ],
      expect: { calls: [{ tool: "lookupOrder" }] },
      throwOnFailure: false,
    });
    expect(report.passed).toBe(false);
    expect(report.problems).toEqual(['calls: expected 1, got 2; extra: refund {"orderId":"a"} -> ok (1 attempt)']);
  });

  it("lets a run that asks for more turns than scripted reject with ScriptExhaustedError", async () => {
    const factory = kitBuilder().usingToolResultMiddleware().buildAgentFactory();
    await expect(
      runScenario({ factory, agent: { name: "s", instructions: "" }, input: "x", script: [lookupScript[0]!] }),
    ).rejects.toThrow(ScriptExhaustedError);
    expect(new ScriptedChatClient([]).remaining).toBe(0);
  });
});
