import { type ChatResponse, createToolOutcome, type ToolOutcome } from "@needlework/core";
import { afterEach, describe, expect, it } from "vitest";
import type { DurableExecution, DurableToolCall } from "../durable-execution.js";
import { roundStep, turnStep } from "../durable-execution.js";
import type { DurableExecutionHarness, OpenDurableExecution } from "./execution-harness.js";
import { runIdFor } from "./fixtures.js";

/** A model turn asking for `callIds`, as the loop names them. */
function turnAsking(callIds: readonly string[]): ChatResponse {
  return {
    message: {
      toolCalls: callIds.map((id) => ({ id, name: "crm_upsert", arguments: { id } })),
    },
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
    finishReason: "tool_calls",
  };
}

/** A tool call of the contract's run: a write unless told otherwise. */
function callOf(runId: string, callId: string, options: Partial<DurableToolCall> = {}): DurableToolCall {
  return {
    callId,
    tool: "crm_upsert",
    arguments: { id: callId },
    idempotencyKey: `${runId}:${callId}`,
    idempotent: false,
    readOnly: false,
    known: true,
    runs: true,
    ...options,
  };
}

/** A body that counts its runs and returns an ok envelope carrying the key it was given. */
function counted(runs: string[], call: DurableToolCall): () => Promise<ToolOutcome> {
  return async () => {
    runs.push(call.callId);
    return createToolOutcome({
      status: "ok",
      data: { saved: call.callId },
      metadata: {
        tool: call.tool,
        callId: call.callId,
        attempts: 1,
        latencyMs: 1,
        idempotencyKey: call.idempotencyKey,
      },
    });
  };
}

/** Never settles: the call is in flight when its attempt stops. */
const forever = (): Promise<ToolOutcome> => new Promise<ToolOutcome>(() => undefined);

/** Lets a call's start (written before its body) reach the store. */
const started = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * The rules every {@link DurableExecution} keeps, as vitest suites: the built-in journal over any
 * store, and each engine adapter (`@needlework/dbos`, `@needlework/restate`). `open` is called once
 * per test for a fresh harness.
 *
 * @example
 * ```ts
 * import { durableExecutionContract, journalExecutionHarness } from "@needlework/durable/testing";
 * durableExecutionContract("in-memory journal", async () => journalExecutionHarness(new InMemoryRunStore().journal));
 * ```
 */
export function durableExecutionContract(name: string, open: OpenDurableExecution): void {
  describe(`${name} (durable execution contract)`, () => {
    let harness: DurableExecutionHarness;
    const live: DurableExecution[] = [];
    const attempt = async (runId: string): Promise<DurableExecution> => {
      const execution = await harness.open(runId);
      live.push(execution);
      return execution;
    };
    const stop = async (execution: DurableExecution): Promise<void> => {
      live.splice(live.indexOf(execution), 1);
      await harness.stop(execution);
    };
    afterEach(async () => {
      for (const execution of live.splice(0)) await harness.stop(execution).catch(() => undefined);
    });

    it("a model turn is a step: run once, replayed from its record", async () => {
      harness = await open();
      const runId = runIdFor("step");
      const first = await attempt(runId);
      expect(first.runId).toBe(runId);
      let asked = 0;
      const ask = async () => {
        asked += 1;
        return turnAsking(["call_1"]);
      };
      const response = await first.step(turnStep(0), ask);
      expect(response.message.toolCalls?.[0]?.id).toBe("call_1");
      await stop(first);
      const replay = await attempt(runId);
      const again = await replay.step(turnStep(0), ask);
      expect(asked).toBe(1);
      expect(again.message.toolCalls).toEqual(response.message.toolCalls);
      expect(again.usage).toEqual(response.usage);
    });

    it("G1: a finished call never runs again; its outcome comes back with its key", async () => {
      harness = await open();
      const runId = runIdFor("finished");
      const runs: string[] = [];
      const call = callOf(runId, "call_1");
      const first = await attempt(runId);
      await first.step(turnStep(0), async () => turnAsking([call.callId]));
      await first.step(roundStep(1), async () => ({ nonce: "n1", keys: [call.idempotencyKey] }));
      const outcome = await first.call(call.idempotencyKey, counted(runs, call), call);
      expect(outcome.status).toBe("ok");
      await stop(first);
      const replay = await attempt(runId);
      await replay.step(turnStep(0), async () => turnAsking([call.callId]));
      await replay.step(roundStep(1), async () => ({ nonce: "n2", keys: [call.idempotencyKey] }));
      const again = await replay.call(call.idempotencyKey, counted(runs, call), call);
      expect(runs).toEqual(["call_1"]);
      expect(again.status).toBe("ok");
      expect(again.data).toEqual({ saved: "call_1" });
      expect(again.metadata.idempotencyKey).toBe(call.idempotencyKey);
    });

    it("G2: a call in flight runs again only when idempotent, with the same key; else OUTCOME_UNKNOWN", async () => {
      harness = await open();
      const runId = runIdFor("in-flight");
      const write = callOf(runId, "call_1");
      const safe = callOf(runId, "call_2", { idempotent: true });
      const first = await attempt(runId);
      await first.step(turnStep(0), async () => turnAsking([write.callId, safe.callId]));
      await first.step(roundStep(1), async () => ({ nonce: "n1", keys: [write.idempotencyKey, safe.idempotencyKey] }));
      void first.call(write.idempotencyKey, forever, write);
      void first.call(safe.idempotencyKey, forever, safe);
      await started();
      await stop(first);
      const runs: string[] = [];
      const replay = await attempt(runId);
      await replay.step(turnStep(0), async () => turnAsking([write.callId, safe.callId]));
      await replay.step(roundStep(1), async () => ({ nonce: "n2", keys: [write.idempotencyKey, safe.idempotencyKey] }));
      const [unknown, rerun] = await Promise.all([
        replay.call(write.idempotencyKey, counted(runs, write), write),
        replay.call(safe.idempotencyKey, counted(runs, safe), safe),
      ]);
      expect(runs).toEqual(["call_2"]);
      expect(unknown.errorCode).toBe("OUTCOME_UNKNOWN");
      expect(unknown.retriable).toBe(false);
      expect(unknown.metadata.idempotencyKey).toBe(write.idempotencyKey);
      expect(rerun.status).toBe("ok");
      expect(rerun.metadata.idempotencyKey).toBe(safe.idempotencyKey);
    });

    it("a repeated call keeps the first call's key and still runs as its own call", async () => {
      harness = await open();
      const runId = runIdFor("repeat");
      const firstCall = callOf(runId, "call_1");
      const repeat = callOf(runId, "call_2", { idempotencyKey: firstCall.idempotencyKey });
      const runs: string[] = [];
      const first = await attempt(runId);
      await first.step(turnStep(0), async () => turnAsking([firstCall.callId, repeat.callId]));
      const a = await first.call(firstCall.idempotencyKey, counted(runs, firstCall), firstCall);
      const b = await first.call(repeat.idempotencyKey, counted(runs, repeat), repeat);
      expect(runs).toEqual(["call_1", "call_2"]);
      expect([a.metadata.idempotencyKey, b.metadata.idempotencyKey]).toEqual([
        firstCall.idempotencyKey,
        firstCall.idempotencyKey,
      ]);
      await stop(first);
      const replay = await attempt(runId);
      await replay.step(turnStep(0), async () => turnAsking([firstCall.callId, repeat.callId]));
      // A replay asks in the order the run asked (the loop is deterministic; an engine's journal is positional).
      await replay.call(firstCall.idempotencyKey, counted(runs, firstCall), firstCall);
      const again = await replay.call(repeat.idempotencyKey, counted(runs, repeat), repeat);
      expect(runs).toEqual(["call_1", "call_2"]);
      expect(again.data).toEqual({ saved: "call_2" });
      expect(again.metadata.idempotencyKey).toBe(firstCall.idempotencyKey);
    });

    it("an outcome the loop gives without running a body is recorded once and replayed", async () => {
      harness = await open();
      const runId = runIdFor("answered");
      const call = callOf(runId, "call_1", { runs: false });
      const denied = createToolOutcome({
        status: "error",
        errorCode: "APPROVAL_DENIED",
        metadata: { tool: call.tool, callId: call.callId, attempts: 0, latencyMs: 0 },
      });
      const first = await attempt(runId);
      await first.step(turnStep(0), async () => turnAsking([call.callId]));
      await first.call(call.idempotencyKey, async () => denied, call);
      await stop(first);
      const replay = await attempt(runId);
      await replay.step(turnStep(0), async () => turnAsking([call.callId]));
      expect(await replay.waitForDecision(call.callId, true)).toBe("settled");
      let ran = false;
      const again = await replay.call(
        call.idempotencyKey,
        async () => {
          ran = true;
          return denied;
        },
        call,
      );
      expect(ran).toBe(false);
      expect(again.errorCode).toBe("APPROVAL_DENIED");
    });

    it("holds no decision for a call nobody decided, and gives time and randomness", async () => {
      harness = await open();
      const execution = await attempt(runIdFor("decision"));
      expect(await execution.waitForDecision("call_9", false)).toBeUndefined();
      expect(Number.isFinite(execution.now())).toBe(true);
      const r = execution.random();
      expect(r >= 0 && r < 1).toBe(true);
    });
  });
}
