// The factory's one telemetry subscriber: a plugin's `telemetry` hears each run's start, end and
// error and its model calls from the run, and its tool executions from its place in the pipeline.
import { InMemoryRunStore } from "@needlework/durable";
import { type RunTelemetry, toolTelemetry } from "@needlework/otel";
import { describe, expect, it, vi } from "vitest";
import { diagnosticsHarness } from "../../../test/diagnostics-fixtures.js";
import type { AgentFrameworkPlugin } from "../../plugin.js";
import { ScriptedChatClient } from "../index.js";

function listening() {
  const heard: string[] = [];
  const subscriber: RunTelemetry = {
    onRunStart: (e) => void heard.push(`run-start ${e.agent} resumed=${e.resumed}`),
    onModelCallStart: (e) => void heard.push(`model-start ${e.runId}`),
    onModelCallEnd: (e) => void heard.push(`model-end ${e.status}`),
    onToolExecutionStart: (e) => void heard.push(`tool-start ${e.tool} ${e.runId}`),
    onToolExecutionEnd: (e) => void heard.push(`tool-end ${e.tool} ${e.status} attempts=${e.attempts}`),
    onRunEnd: (e) => void heard.push(`run-end ${e.result.status}`),
    onRunError: (e) => void heard.push(`run-error ${e.agent} ${(e.error as Error).message}`),
  };
  const tools = toolTelemetry(subscriber);
  const wrapRun = vi.fn((_run: unknown, body: () => Promise<never>) => body());
  const wrapChatClient = vi.fn((client: never) => client);
  const plugin: AgentFrameworkPlugin = {
    name: "listening",
    telemetry: () => subscriber,
    createMiddleware: () => tools.middleware,
    createObserver: () => tools.observer,
    wrapRun,
    wrapChatClient,
  };
  return { heard, plugin, wrapRun, wrapChatClient };
}

describe("a plugin's telemetry subscriber", () => {
  it("hears the run's start, its model calls, its tool executions and its end, in order; its deprecated members are not called", async () => {
    const { heard, plugin, wrapRun, wrapChatClient } = listening();
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    world.on("postNote", () => ({ posted: true }));
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ id: "c1", name: "postNote", arguments: { note: "n" } }] },
      { text: "Posted." },
    ]);
    const agent = factory.createAgent({ name: "crm", instructions: "", chatClient });
    await agent.run("go", { runId: "run_t" });
    expect(heard).toEqual([
      "run-start crm resumed=false",
      "model-start run_t",
      "model-end ok",
      "tool-start postNote run_t",
      "tool-end postNote returned attempts=1",
      "model-start run_t",
      "model-end ok",
      "run-end completed",
    ]);
    expect(wrapRun).not.toHaveBeenCalled();
    expect(wrapChatClient).not.toHaveBeenCalled();
  });

  it("hears a run that throws as its error, and a subscriber that throws changes nothing", async () => {
    const { heard, plugin } = listening();
    const broken: AgentFrameworkPlugin = {
      name: "broken",
      telemetry: () => ({
        onRunStart: () => {
          throw new Error("subscriber bug");
        },
      }),
    };
    const { factory } = diagnosticsHarness((b) => b.usingPlugin(broken).usingPlugin(plugin));
    const chatClient = new ScriptedChatClient([
      () => {
        throw new Error("model down");
      },
    ]);
    await expect(factory.createAgent({ name: "crm", instructions: "", chatClient }).run("go")).rejects.toThrow(
      "model down",
    );
    expect(heard).toEqual([
      "run-start crm resumed=false",
      expect.stringMatching(/^model-start run_/),
      "model-end error",
      "run-error crm model down",
    ]);
  });

  it("a resumed run starts resumed; its replayed turn and call make no model-call or tool-execution event", async () => {
    const { heard, plugin } = listening();
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    world.on("postNote", () => ({ posted: true }));
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ id: "c1", name: "postNote", arguments: { note: "n" } }] },
      () => {
        throw new Error("model down");
      },
      { text: "Posted." },
    ]);
    const agent = factory.createAgent({ name: "crm", instructions: "", chatClient, store: new InMemoryRunStore() });
    await expect(agent.run("go", { runId: "run_r" })).rejects.toThrow("model down");
    heard.length = 0;
    expect((await agent.resumeRun("run_r")).status).toBe("completed");
    expect(heard).toEqual(["run-start crm resumed=true", "model-start run_r", "model-end ok", "run-end completed"]);
  });
});
