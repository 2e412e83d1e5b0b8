import { createToolOutcome, type ToolOutcome } from "@needlework/core";
import { describe, expect, it } from "vitest";
import type { DecisionCheck, DurableToolCall, RoundStart } from "./durable-execution.js";
import { engineExecution, type EngineSteps } from "./engine-execution.js";

/** A fake engine: a journal of step values by name, kept across "processes" (executions). */
function fakeEngine(runId = "run-1") {
  const journal = new Map<string, unknown>();
  const ran: string[] = [];
  const open = (waitForDecision?: EngineSteps["waitForDecision"]): EngineSteps => ({
    runId,
    async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
      if (journal.has(name)) return structuredClone(journal.get(name)) as T;
      ran.push(name);
      const value = await fn();
      journal.set(name, JSON.parse(JSON.stringify(value)));
      return value;
    },
    ...(waitForDecision === undefined ? {} : { waitForDecision }),
  });
  return { journal, ran, open };
}

const ok = (data: unknown): ToolOutcome =>
  createToolOutcome({ status: "ok", retriable: false, data, metadata: { tool: "t", callId: "c", attempts: 1 } });

function call(callId: string, tool: string, flags: Partial<DurableToolCall> = {}): DurableToolCall {
  return {
    callId,
    tool,
    arguments: {},
    idempotencyKey: `run-1:${callId}`,
    idempotent: false,
    readOnly: false,
    known: true,
    runs: true,
    ...flags,
  };
}

const round = (keys: string[]) => async (): Promise<RoundStart> => ({ nonce: String(Math.random()), keys });

describe("engineExecution", () => {
  it("runs a step once: a later execution gets the recorded value without running it", async () => {
    const engine = fakeEngine();
    let asked = 0;
    const first = engineExecution(engine.open());
    expect(await first.step("turn:0", async () => ({ message: { content: `answer ${++asked}` } }))).toEqual({
      message: { content: "answer 1" },
    });
    expect(first.replaying?.()).toBe(false);
    const second = engineExecution(engine.open());
    const replayed = await second.step("turn:0", async () => ({ message: { content: `answer ${++asked}` } }));
    expect(replayed).toMatchObject({ message: { content: "answer 1" } });
    expect(asked).toBe(1);
    expect(second.replaying?.()).toBe(true);
  });

  it("G1: a call whose outcome is recorded never runs again", async () => {
    const engine = fakeEngine();
    let runs = 0;
    const body = async () => ok({ n: ++runs });
    await engineExecution(engine.open()).step("round:1", round(["run-1:c1"]));
    await engineExecution(engine.open()).call("run-1:c1", body, call("c1", "charge"));
    const again = engineExecution(engine.open());
    await again.step("round:1", round(["run-1:c1"]));
    expect((await again.call("run-1:c1", body, call("c1", "charge"))).data).toEqual({ n: 1 });
    expect(runs).toBe(1);
  });

  it("G2: a call in flight at the crash runs again only when idempotent, with the same key", async () => {
    const engine = fakeEngine();
    const keys = ["run-1:c1", "run-1:c2", "run-1:c3"];
    // The first execution recorded the round's start, then died with every call in flight.
    await engineExecution(engine.open()).step("round:1", round(keys));
    const seen: string[] = [];
    const body = (key: string) => async () => (seen.push(key), ok({ key }));
    const replay = engineExecution(engine.open());
    await replay.step("round:1", round(keys));
    const charge = await replay.call("run-1:c1", body("run-1:c1"), call("c1", "charge"));
    const upsert = await replay.call("run-1:c2", body("run-1:c2"), call("c2", "upsert", { idempotent: true }));
    const lookup = await replay.call("run-1:c3", body("run-1:c3"), call("c3", "lookup", { readOnly: true }));
    expect(charge).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
    expect(upsert.data).toEqual({ key: "run-1:c2" });
    expect(lookup.status).toBe("ok");
    expect(seen).toEqual(["run-1:c2", "run-1:c3"]);
    // The unknown outcome is recorded: the next execution reads it, still without running the call.
    const third = engineExecution(engine.open());
    await third.step("round:1", round(keys));
    expect(await third.call("run-1:c1", body("run-1:c1"), call("c1", "charge"))).toMatchObject({
      errorCode: "OUTCOME_UNKNOWN",
    });
    expect(seen).toEqual(["run-1:c2", "run-1:c3"]);
  });

  it("a call of a round this execution started runs, whatever its tool", async () => {
    const engine = fakeEngine();
    const execution = engineExecution(engine.open());
    await execution.step("round:1", round(["run-1:c1"]));
    expect((await execution.call("run-1:c1", async () => ok(1), call("c1", "charge"))).data).toBe(1);
  });

  it("G6: an outcome over the recorded limit is a RESULT_TOO_LARGE error, recorded (never retried)", async () => {
    const engine = fakeEngine();
    const big = async () => ok("x".repeat(5 * 1024 * 1024));
    const execution = engineExecution(engine.open(), { maxRecordedBytes: 1024 * 1024 });
    await execution.step("round:1", round(["run-1:c1"]));
    const outcome = await execution.call("run-1:c1", big, call("c1", "report"));
    expect(outcome).toMatchObject({ status: "error", errorCode: "RESULT_TOO_LARGE", retriable: false });
    expect(JSON.stringify(engine.journal.get("call:c1")).length).toBeLessThan(2_000);
    const replayed = await engineExecution(engine.open()).call("run-1:c1", big, call("c1", "report"));
    expect(replayed).toMatchObject({ errorCode: "RESULT_TOO_LARGE" });
  });

  it("waits for a decision only for a gated call, through the engine's wait", async () => {
    const engine = fakeEngine();
    const record = { decision: "approved", signature: "a".repeat(64) } as const;
    const asked: string[] = [];
    const execution = engineExecution(engine.open(async (callId) => (asked.push(callId), record)));
    expect(await execution.waitForDecision("c1", false)).toBeUndefined();
    expect(await execution.waitForDecision("c1", true)).toEqual(record);
    expect(asked).toEqual(["c1"]);
    expect(await engineExecution(engine.open()).waitForDecision("c1", true)).toBeUndefined();
  });

  it("hands the loop's check to the engine's wait, which takes only a record the check verifies", async () => {
    const engine = fakeEngine();
    const forged = { decision: "approved", signature: "f".repeat(64) } as const;
    const record = { decision: "approved", signature: "a".repeat(64) } as const;
    const check: DecisionCheck = { tool: "refund", arguments: { orderId: "o1" }, verifies: (r) => r === record };
    const handed: (DecisionCheck | undefined)[] = [];
    // The engine's wait reads its messages in order and drops one the check refuses, as DBOS's does.
    const execution = engineExecution(
      engine.open(async (_callId, given) => {
        handed.push(given);
        return [forged, record].find((sent) => given === undefined || given.verifies(sent));
      }),
    );
    expect(await execution.waitForDecision("c1", true, check)).toBe(record);
    expect(handed).toEqual([check]);
  });
});
