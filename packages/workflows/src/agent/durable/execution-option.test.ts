import type { DurableExecution, DurableExecutionFactory } from "@needlework/durable";
import { describe, expect, it } from "vitest";
import { harness } from "../../../test/agent-fixtures.js";

/**
 * A toy engine: every step and call is recorded under its run, by name and by call id (never by
 * key: a repeated call shares its first call's key), and a second execution of the run replays
 * them. Enough to show an engine plugs into the loop through `createAgent({ execution })` alone.
 */
function toyEngine() {
  const runs = new Map<string, Map<string, unknown>>();
  const opened: string[] = [];
  const keys: string[] = [];
  const factory: DurableExecutionFactory = ({ runId }) => {
    opened.push(runId);
    const log = runs.get(runId) ?? new Map<string, unknown>();
    runs.set(runId, log);
    const once = async <T>(id: string, fn: () => Promise<T>): Promise<T> => {
      if (log.has(id)) return log.get(id) as T;
      const value = await fn();
      log.set(id, value);
      return value;
    };
    const execution: DurableExecution = {
      runId,
      step: (name, fn) => once(`step:${name}`, fn),
      call: (key, fn, call) => {
        keys.push(key);
        return once(`call:${call.callId}`, fn);
      },
      waitForDecision: async () => undefined,
      now: () => 0,
      random: () => 0.5,
    };
    return execution;
  };
  return { factory, runs, opened, keys };
}

// The fixture tools include a refund that requires approval: an agent in an engine needs its secret.
const checkpointSecret = "the-agent-checkpoint-secret-of-32-bytes-or-more";

describe("createAgent({ execution }): an engine under the loop", () => {
  it("journals turns, round starts and calls through the engine; a second execution replays them", async () => {
    const h = harness();
    let writes = 0;
    h.world.on("updateContact", ({ contactId }) => {
      writes += 1;
      return { contactId, updated: true };
    });
    const engine = toyEngine();
    const round = {
      toolCalls: [
        { name: "updateContact", arguments: { contactId: "c1", email: "a@x.example" } },
        { name: "updateContact", arguments: { contactId: "c1", email: "a@x.example" } },
      ],
    };
    const { agent } = h.agent([round, { text: "Both updates done." }], { execution: engine.factory, checkpointSecret });
    const first = await agent.run("Update c1.", { runId: "run-engine" });
    expect(first.status).toBe("completed");
    expect(writes).toBe(2);
    const log = engine.runs.get("run-engine")!;
    expect([...log.keys()]).toEqual(["step:turn:0", "step:round:1", "call:call_1_1", "call:call_1_2", "step:turn:1"]);
    // The repeat keeps the first call's key; the engine keys its steps by call id, so both ran.
    expect(engine.keys).toEqual(["run-engine:call_1_1", "run-engine:call_1_1"]);

    // The engine re-runs the workflow: the model is not asked and no tool runs again.
    const { agent: again, model } = h.agent([], { execution: engine.factory, checkpointSecret });
    const replayed = await again.run("Update c1.", { runId: "run-engine" });
    expect(model.requests).toHaveLength(0);
    expect(writes).toBe(2);
    expect(replayed.status).toBe("completed");
    expect(replayed.calls.map((c) => c.callId)).toEqual(first.calls.map((c) => c.callId));
    expect(engine.opened).toEqual(["run-engine", "run-engine"]);
  });
});

describe("createAgent({ execution }) without a store: a pause resumes once", () => {
  it("the agent's journal in memory records the decided pause; a second resume is refused and opens nothing", async () => {
    const h = harness();
    const engine = toyEngine();
    const refund = { toolCalls: [{ name: "refund", arguments: { orderId: "o1", amount: 5 } }] };
    const options = { execution: engine.factory, checkpointSecret: "k".repeat(32) };
    const { agent } = h.agent([refund, { text: "Refunded." }], options);
    const paused = await agent.run("Refund o1.", { runId: "run-engine-pause" });
    expect(paused.status).toBe("awaiting_approval");
    if (paused.status !== "awaiting_approval") return;
    const decisions = { [paused.checkpoint.pending[0]!.callId]: "approved" } as const;
    // What the resumed run does is the engine's (this toy one has no decisions to give); that it
    // is let through once is the agent's journal's.
    await agent.resume(paused.checkpoint, decisions);
    const opened = engine.opened.length;
    await expect(agent.resume(paused.checkpoint, decisions)).rejects.toMatchObject({
      code: "CHECKPOINT_ALREADY_RESUMED",
    });
    expect(engine.opened).toHaveLength(opened);
  });
});
