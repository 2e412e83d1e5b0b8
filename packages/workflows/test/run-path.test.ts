// Every promise on every way to start a run: each of the six starts is journaled (with a store),
// traced with one `invoke_agent` span whose children are its tool spans, and has a streamed form
// that ends in the same result. And one identity per call: a model that repeats a call id in a
// later turn gets distinct call ids and keys, journaled apart, and a crashed run resumes the new call.
// And the matrix {fresh, approval pause, crash} × {run, stream}: both forms of each scenario leave the
// same result, the same journal records, the same trace spans and the same tool executions.
import { TRACE_ATTRIBUTES } from "@needlework/otel";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { type AgentHooks, ScriptedChatClient, type ScriptedStep, usingAgentFramework } from "../src/index.js";
import {
  drain,
  expectTraced,
  type Form,
  footprint,
  hangOnce,
  NoteTools,
  saveTurn,
  seen,
  setUp,
  started,
} from "./run-path-fixtures.js";

describe("the six starts share one path", () => {
  it.each(["run", "stream"] as const)("%s: journaled, traced, and both forms end alike", async (start) => {
    const { agent, store, spans } = setUp([saveTurn("a"), { text: "Saved." }]);
    const result =
      start === "run"
        ? await agent.run("Save a.", { runId: `r-${start}` })
        : (await drain(agent.stream("Save a.", { runId: `r-${start}` }))).result;
    expect(result.status).toBe("completed");
    const journaled = await store.journal.read(`r-${start}`);
    expect(journaled?.end?.status).toBe("completed");
    expect(journaled?.calls.map((c) => c.tool)).toEqual(["save"]);
    expectTraced(spans(), 1);
  });

  it.each(["resume", "resumeStream"] as const)(
    "%s: an approval resume continues its run's journal, is traced, and streams to the same end",
    async (start) => {
      const { make, store, spans } = setUp([]);
      const paused = await make([{ toolCalls: [{ name: "send", arguments: { to: "c1" } }] }, { text: "never" }]).run(
        "Send to c1.",
        { runId: `p-${start}` },
      );
      if (paused.status !== "awaiting_approval") throw new Error(paused.status);
      const decisions = { [paused.pendingApprovals[0]!.callId]: "approved" } as const;
      const resumed = make([{ text: "Sent." }]);
      const result =
        start === "resume"
          ? await resumed.resume(paused.checkpoint, decisions)
          : (await drain(resumed.resumeStream(paused.checkpoint, decisions))).result;
      expect(result.status).toBe("completed");
      expect(result.runId).toBe(`p-${start}`);
      const journaled = await store.journal.read(`p-${start}`);
      expect(journaled?.end?.status).toBe("completed");
      expect(journaled?.calls.map((c) => [c.tool, c.outcome?.outcome.status])).toEqual([["send", "ok"]]);
      expectTraced(spans(), 2);
      // The journal now holds the whole run: resumeRun returns its result without running anything.
      const before = seen.length;
      expect((await make([]).resumeRun(`p-${start}`)).status).toBe("completed");
      expect(seen.length).toBe(before);
    },
  );

  it.each(["resumeRun", "resumeRunStream"] as const)(
    "%s: a crashed run continues from its journal, traced, streamed to the same end",
    async (start) => {
      const { make, store, spans } = setUp([]);
      hangOnce.add(`crash-${start}`);
      const controller = new AbortController();
      const crashed = make([saveTurn(`crash-${start}`), { text: "Saved." }]).run("Save.", {
        runId: `c-${start}`,
        signal: controller.signal,
      });
      await expect.poll(() => seen.some((s) => s.value === `crash-${start}`)).toBe(true);
      controller.abort();
      await expect(crashed).rejects.toThrow();
      const agent = make([{ text: "Saved." }]);
      const outcome =
        start === "resumeRun"
          ? { types: [] as string[], result: await agent.resumeRun(`c-${start}`) }
          : await drain(agent.resumeRunStream(`c-${start}`));
      expect(outcome.result.status).toBe("completed");
      if (start === "resumeRunStream") {
        expect(outcome.types[0]).toBe("run-start");
        expect(outcome.types.at(-1)).toBe("run-end");
        expect(outcome.types).toContain("tool-result");
      }
      expect((await store.journal.read(`c-${start}`))?.end?.status).toBe("completed");
      expect(seen.filter((s) => s.value === `crash-${start}`)).toHaveLength(2); // idempotent: ran again
      // The crashed run's span ended with its error; the resumed one is a second run span.
      expectTraced(spans(), 2);
    },
  );
});

describe("one identity per call", () => {
  it("a model repeating a call id in a later turn gets distinct call ids and keys, each journaled with its arguments", async () => {
    const { agent, store } = setUp([saveTurn("first", "call_1"), saveTurn("second", "call_1"), { text: "Done." }]);
    const result = await agent.run("Save two.", { runId: "ids" });
    const ids = result.calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(2);
    const mine = seen.filter((s) => s.value === "first" || s.value === "second");
    expect(new Set(mine.map((s) => s.key)).size).toBe(2);
    expect(mine.map((s) => s.callId)).toEqual(ids);
    const journaled = await store.journal.read("ids");
    expect(journaled?.calls.map((c) => c.arguments)).toEqual([{ value: "first" }, { value: "second" }]);
    expect(journaled?.calls.map((c) => c.idempotencyKey)).toEqual(mine.map((s) => s.key));
    // The provider's id still pairs each tool message with its assistant message.
    const toolMessages = result.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => (m.role === "tool" ? m.toolCallId : ""))).toEqual(["call_1", "call_1"]);
  });

  it("after a crash in the second call, resumeRun runs it rather than answering with the first call's outcome", async () => {
    const { make, spans } = setUp([]);
    hangOnce.add("again-2");
    const controller = new AbortController();
    const crashed = make([saveTurn("again-1", "call_1"), saveTurn("again-2", "call_1"), { text: "Done." }]).run(
      "Save two.",
      { runId: "ids-crash", signal: controller.signal },
    );
    await expect.poll(() => seen.some((s) => s.value === "again-2")).toBe(true);
    controller.abort();
    await expect(crashed).rejects.toThrow();
    const result = await make([{ text: "Done." }]).resumeRun("ids-crash");
    expect(result.status).toBe("completed");
    expect(seen.filter((s) => s.value === "again-2")).toHaveLength(2);
    expect(seen.filter((s) => s.value === "again-1")).toHaveLength(1);
    // Traced as it ran: the replayed first call has its one span (from the crashed run), the second
    // call one per execution, and the resumed run's span carries the run id like the crashed one's.
    const toolSpans = spans().filter((s) => s.name === "execute_tool save");
    const callIds = result.calls.map((c) => c.callId);
    expect(
      callIds.map((id) => toolSpans.filter((s) => s.attributes[TRACE_ATTRIBUTES.toolCallId] === id).length),
    ).toEqual([1, 2]);
    const runSpans = spans().filter((s) => s.name.startsWith("invoke_agent"));
    expect(runSpans.map((s) => [s.attributes[TRACE_ATTRIBUTES.runId], s.status.code])).toEqual([
      ["ids-crash", 2],
      ["ids-crash", 0],
    ]);
  });
});

describe("maxToolCallsPerTurn", () => {
  it("runs the first calls of a flooding turn and answers the rest TOO_MANY_TOOL_CALLS, never run", async () => {
    const flood: ScriptedStep = {
      toolCalls: Array.from({ length: 200 }, (_, i) => ({ name: "save", arguments: { value: `flood-${i}` } })),
    };
    const { make, store } = setUp([]);
    const agent = make([flood, { text: "Saved some." }]);
    const result = await agent.run("Save everything.", { runId: "flood" });
    expect(seen.filter((s) => s.value.startsWith("flood-"))).toHaveLength(128);
    const refused = result.calls.filter((c) => c.errorCode === "TOO_MANY_TOOL_CALLS");
    expect(refused).toHaveLength(72);
    expect(refused.every((c) => c.status === "skipped" && c.notCalled)).toBe(true);
    // Every call is answered, so the conversation stays well formed.
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(200);
    const tooMany = result.messages.find((m) => m.role === "tool" && m.content.includes("TOO_MANY_TOOL_CALLS"));
    expect(tooMany?.content).toContain('"retriable":false');
    expect((await store.journal.read("flood"))?.calls.filter((c) => c.outcome?.outcome.status === "ok")).toHaveLength(
      128,
    );
  });

  it("is a validated agent option", () => {
    expect(() =>
      usingAgentFramework(container.createChildContainer())
        .addAgentFunctions(NoteTools)
        .buildAgentFactory()
        .createAgent({ name: "x", instructions: "x", chatClient: new ScriptedChatClient([]), maxToolCallsPerTurn: 0 }),
    ).toThrow(/maxToolCallsPerTurn/);
  });
});

/** Each scenario, in one form, on its own store and tracer; the same run id in both forms. */
const scenarios = {
  async fresh(form: Form) {
    const setup = setUp([]);
    const from = seen.length;
    const result = await started(setup.make([saveTurn("m-fresh"), { text: "Saved." }]), form, "Save.", "m-fresh");
    return footprint(setup, "m-fresh", result, from);
  },
  async "approval pause"(form: Form) {
    const setup = setUp([]);
    const from = seen.length;
    const script: ScriptedStep[] = [saveTurn("m-pause"), { toolCalls: [{ name: "send", arguments: { to: "c9" } }] }];
    const paused = await started(setup.make(script), form, "Save, then send.", "m-pause");
    if (paused.status !== "awaiting_approval") throw new Error(`expected a pause, got ${paused.status}`);
    const pausedFootprint = await footprint(setup, "m-pause", paused, from);
    const decisions = { [paused.pendingApprovals[0]!.callId]: "approved" } as const;
    const agent = setup.make([{ text: "Sent." }]);
    const result =
      form === "run"
        ? await agent.resume(paused.checkpoint, decisions)
        : (await drain(agent.resumeStream(paused.checkpoint, decisions))).result;
    return { paused: pausedFootprint, resumed: await footprint(setup, "m-pause", result, from) };
  },
  async crash(form: Form) {
    const setup = setUp([]);
    const from = seen.length;
    hangOnce.add("m-crash");
    const controller = new AbortController();
    const crashed = started(
      setup.make([saveTurn("m-crash"), { text: "Saved." }]),
      form,
      "Save.",
      "m-crash",
      controller.signal,
    );
    await expect.poll(() => seen.slice(from).some((s) => s.value === "m-crash")).toBe(true);
    controller.abort();
    await expect(crashed).rejects.toThrow();
    const agent = setup.make([{ text: "Saved." }]);
    const result =
      form === "run" ? await agent.resumeRun("m-crash") : (await drain(agent.resumeRunStream("m-crash"))).result;
    return footprint(setup, "m-crash", result, from);
  },
} as const;

describe("the run path matrix: {fresh, approval pause, crash} × {run, stream}, journaled and traced alike", () => {
  it("fresh: one journaled run, one run span over its tool span, the same in both forms", async () => {
    const run = await scenarios.fresh("run");
    expect(await scenarios.fresh("stream")).toEqual(run);
    expect(run.result.status).toBe("completed");
    expect(run.journal.calls?.map((c) => [c.tool, c.outcome?.[0]])).toEqual([["save", "ok"]]);
    expect(run.journal.end).toBe("completed");
    expect(run.spans.filter(([name]) => String(name).startsWith("invoke_agent"))).toHaveLength(1);
    expect(run.executions).toHaveLength(1);
  });

  it("approval pause: the pause is journaled, the resume continues the same journal, the same in both forms", async () => {
    const run = await scenarios["approval pause"]("run");
    expect(await scenarios["approval pause"]("stream")).toEqual(run);
    expect(run.paused.journal.end).toBe("awaiting_approval");
    expect(run.paused.executions.map(([tool]) => tool)).toEqual(["save"]);
    expect(run.resumed.result.status).toBe("completed");
    expect(run.resumed.journal.end).toBe("completed");
    const send = run.resumed.journal.calls?.find((c) => c.tool === "send");
    expect(send?.approval?.decision).toBe("approved");
    expect(send?.outcome?.[0]).toBe("ok");
    // The save of the first turn ran once, before the pause; the send once, after the decision.
    expect(run.resumed.executions.map(([tool]) => tool)).toEqual(["save", "send"]);
    expect(run.resumed.spans.filter(([name]) => String(name).startsWith("invoke_agent"))).toHaveLength(2);
  });

  it("crash: the resumed run replays its journal and ends it, the same in both forms", async () => {
    const run = await scenarios.crash("run");
    expect(await scenarios.crash("stream")).toEqual(run);
    expect(run.result.status).toBe("completed");
    expect(run.journal.end).toBe("completed");
    // The call that never settled ran again under the same key (its tool is idempotent).
    expect(run.executions).toHaveLength(2);
    expect(new Set(run.executions.map(([, , , key]) => key)).size).toBe(1);
    expect(run.spans.filter(([name]) => String(name).startsWith("invoke_agent"))).toHaveLength(2);
  });
});

describe("the loop cannot tell a replay", () => {
  it.each(["run", "stream"] as const)(
    "%s: across a crash and resumeRun, each hook fires once per turn and per call (the replayed ones stay quiet)",
    async (form) => {
      const { make } = setUp([]);
      const fired: string[] = [];
      const hooks: AgentHooks = {
        onIterationStart: ({ iteration }) => void fired.push(`start ${iteration}`),
        onToolCall: ({ record }) => void fired.push(`call ${record.tool} ${record.callId}`),
        onIterationEnd: ({ iteration }) => void fired.push(`end ${iteration}`),
      };
      hangOnce.add(`h-crash-${form}`);
      const controller = new AbortController();
      const script = [saveTurn(`h-first-${form}`), saveTurn(`h-crash-${form}`), { text: "Saved." }];
      const crashed = started(make(script, hooks), form, "Save two.", `h-${form}`, controller.signal);
      await expect.poll(() => seen.some((s) => s.value === `h-crash-${form}`)).toBe(true);
      controller.abort();
      await expect(crashed).rejects.toThrow();
      expect(fired).toEqual(["start 1", "call save call_1_1", "end 1", "start 2"]);
      const agent = make([{ text: "Saved." }], hooks);
      const result =
        form === "run" ? await agent.resumeRun(`h-${form}`) : (await drain(agent.resumeRunStream(`h-${form}`))).result;
      expect(result.status).toBe("completed");
      expect(fired).toEqual([
        "start 1",
        "call save call_1_1",
        "end 1",
        "start 2",
        "call save call_2_1",
        "end 2",
        "start 3",
        "end 3",
      ]);
    },
  );
});
