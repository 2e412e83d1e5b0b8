// One typed event stream per run: hooks, a stream's sink and the plugins' run observers hear the
// same events in the same order; retries reach the run through the call's context; events a resumed
// run replays from its journal carry `replayed: true`, and the hooks stay silent for them.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, type ToolContext, ToolResult } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentEvent,
  type AgentFrameworkPlugin,
  InMemoryRunStore,
  ScriptedChatClient,
  type ScriptedStep,
  usingAgentFramework,
} from "../../index.js";
import type { RunObserved } from "../../streaming.js";

/** Values whose first call hangs until its run is aborted (a process dying mid-call). */
const hangOnce = new Set<string>();
/** Values whose first call fails with a transient code (resilience retries it). */
const lockedOnce = new Set<string>();

@AgentFunctionGroup()
class NoteTools {
  @AgentFunction({
    description: "Saves a note.",
    input: z.object({ value: z.string().describe("The note.") }),
    idempotent: true,
  })
  async save({ value }: { value: string }, ctx: ToolContext) {
    if (lockedOnce.delete(value)) return ToolResult.fail("locked", { code: "LOCKED", transient: true });
    if (hangOnce.delete(value))
      await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    return ToolResult.ok({ saved: value });
  }
}

const saveTurn = (value: string): ScriptedStep => ({ toolCalls: [{ name: "save", arguments: { value } }] });

/** A plugin that observes every run: what it heard, by run. */
function recorder() {
  const heard: { run: RunObserved; event: AgentEvent }[] = [];
  const plugin: AgentFrameworkPlugin = {
    name: "recorder",
    observeRun: (run) => (event) => heard.push({ run, event }),
  };
  return { plugin, heard };
}

function setUp(observers: AgentFrameworkPlugin[] = []) {
  const store = new InMemoryRunStore();
  let builder = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(NoteTools)
    .usingResilience({ retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0, jitter: 0 } })
    .usingToolResultMiddleware();
  for (const plugin of observers) builder = builder.usingPlugin(plugin);
  const factory = builder.buildAgentFactory();
  const hooks: string[] = [];
  const make = (steps: ScriptedStep[]) =>
    factory.createAgent({
      name: "notes",
      instructions: "Keep notes.",
      chatClient: new ScriptedChatClient(steps),
      store,
      onIterationStart: ({ iteration }) => void hooks.push(`start ${iteration}`),
      onToolCall: ({ arguments: args }) => void hooks.push(`call ${(args as { value: string }).value}`),
      onIterationEnd: ({ iteration }) => void hooks.push(`end ${iteration}`),
    });
  return { make, hooks };
}

describe("one event stream per run", () => {
  it("a plugin's observeRun hears a run() as a stream would, the retry included (through the call's context)", async () => {
    const { plugin, heard } = recorder();
    const { make } = setUp([plugin]);
    lockedOnce.add("retried");
    const result = await make([saveTurn("retried"), { text: "Saved." }]).run("Save.", { runId: "observed" });
    expect(result.status).toBe("completed");
    expect(heard.every(({ run }) => run.agent === "notes" && run.runId === "observed")).toBe(true);
    const types = heard.map(({ event }) => event.type);
    expect(types[0]).toBe("run-start");
    expect(types.at(-1)).toBe("run-end");
    expect(types.indexOf("tool-call")).toBeLessThan(types.indexOf("tool-retry"));
    expect(types.indexOf("tool-retry")).toBeLessThan(types.indexOf("tool-result"));
    const retry = heard.find(({ event }) => event.type === "tool-retry")?.event;
    expect(retry).toMatchObject({ type: "tool-retry", tool: "save", attempt: 1, errorCode: "LOCKED" });
    // The hooks' moments stay between the run and its hooks: an observer sees AgentEvents only.
    expect(types.every((t) => !["iteration-start", "call-booked", "iteration-end"].includes(t))).toBe(true);
  });

  it("another run's retries never reach this run (no plugin-wide emitter)", async () => {
    const { plugin, heard } = recorder();
    const { make } = setUp([plugin]);
    lockedOnce.add("mine");
    lockedOnce.add("theirs");
    await Promise.all([
      make([saveTurn("mine"), { text: "Saved." }]).run("Save.", { runId: "run-a" }),
      make([saveTurn("theirs"), { text: "Saved." }]).run("Save.", { runId: "run-b" }),
    ]);
    const retries = heard.filter(({ event }) => event.type === "tool-retry");
    expect(retries.map(({ run }) => run.runId).sort()).toEqual(["run-a", "run-b"]);
  });

  it("an observer that throws changes nothing", async () => {
    const broken: AgentFrameworkPlugin = {
      name: "broken",
      observeRun: () => () => {
        throw new Error("observer down");
      },
    };
    const { make } = setUp([broken]);
    const result = await make([saveTurn("x"), { text: "Saved." }]).run("Save.");
    expect(result.status).toBe("completed");
  });

  it("resumeRunStream marks replayed events replayed: true; the live rest is unmarked; hooks fire for live turns only", async () => {
    const { make, hooks } = setUp();
    hangOnce.add("second");
    const controller = new AbortController();
    const crashed = make([saveTurn("first"), saveTurn("second"), { text: "Saved." }]).run("Save two.", {
      runId: "replayed",
      signal: controller.signal,
    });
    await expect.poll(() => !hangOnce.has("second")).toBe(true);
    controller.abort();
    await expect(crashed).rejects.toThrow();
    hooks.length = 0;

    const stream = make([{ text: "Saved." }]).resumeRunStream("replayed");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect((await stream.result).status).toBe("completed");

    const results = events.filter((e) => e.type === "tool-result");
    expect(results.map((e) => [e.callId === results[0]!.callId ? "first" : "second", e.replayed === true])).toEqual([
      ["first", true],
      ["second", false],
    ]);
    expect(events.find((e) => e.type === "turn-start" && e.turn === 1)?.replayed).toBe(true);
    expect(events.find((e) => e.type === "turn-start" && e.turn === 3)?.replayed).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: "run-end" });
    expect(events.at(-1)?.replayed).toBeUndefined();
    // The hooks fired for the replayed turn when it first ran: now only the live part reaches them.
    expect(hooks).not.toContain("call first");
    expect(hooks).toContain("call second");
    expect(hooks).toContain("start 3");
    expect(hooks).not.toContain("start 1");
  });
});
