import { describe, expect, it } from "vitest";
import { InMemoryDeadLetterQueue } from "./dead-letter-queue.js";
import type { DurableExecution } from "./durable-execution.js";
import { DelegatingExecution, deadLetterRuns } from "./engine-adapter.js";
import { engineExecution } from "./engine-execution.js";

class RecordingExecution extends DelegatingExecution {
  constructor(inner: DurableExecution) {
    super(inner);
  }
}

describe("deadLetterRuns", () => {
  it("letters each exhausted run once, however often it is called", async () => {
    const queue = new InMemoryDeadLetterQueue();
    const runs = [
      { runId: "run-1", reason: "gave up" },
      { runId: "run-2", reason: "gave up" },
      { runId: "run-1", reason: "listed twice" },
    ];
    expect(await deadLetterRuns(queue, "support", runs)).toEqual(["run-1", "run-2"]);
    expect(await deadLetterRuns(queue, "support", runs)).toEqual([]);
    const letters = await queue.list();
    expect(letters.map((l) => [l.runId, l.errorCode, l.agent, l.reason])).toEqual([
      ["run-1", "RECOVERY_ATTEMPTS_EXCEEDED", "support", "gave up"],
      ["run-2", "RECOVERY_ATTEMPTS_EXCEEDED", "support", "gave up"],
    ]);
  });
});

describe("DelegatingExecution", () => {
  it("hands every member to the execution it wraps", async () => {
    const recorded = new Map<string, unknown>();
    const inner = engineExecution({
      runId: "run-1",
      step: async <T>(name: string, fn: () => Promise<T>) => {
        if (recorded.has(name)) return recorded.get(name) as T;
        const value = await fn();
        recorded.set(name, value);
        return value;
      },
      now: () => 42,
      random: () => 0.5,
    });
    const execution = new RecordingExecution(inner);
    expect(execution.runId).toBe("run-1");
    expect(await execution.step("round:1", async () => ({ nonce: "a", keys: [] }))).toEqual({ nonce: "a", keys: [] });
    expect(execution.replaying()).toBe(false);
    expect(await execution.step("round:1", async () => ({ nonce: "b", keys: [] }))).toEqual({ nonce: "a", keys: [] });
    expect(execution.replaying()).toBe(true);
    expect([execution.now(), execution.random()]).toEqual([42, 0.5]);
    expect(await execution.waitForDecision("call_1_1", true)).toBeUndefined();
  });
});
