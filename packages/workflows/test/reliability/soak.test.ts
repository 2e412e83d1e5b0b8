import { formatToolOutcome, isAbortError, type ToolOutcome } from "@needlework/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentRunResult } from "../../src/agent/index.js";
import { ScriptedChatClient } from "../../src/agent/index.js";
import { chaosPlugin, seededRandom } from "../../src/testing/chaos.js";
import {
  abortListeners,
  buildFactory,
  envelopeProblems,
  flushMicrotasks,
  watchUnhandledRejections,
  World,
} from "./reliability-fixtures.js";
import { heldTimers, useFakeTimers } from "../support/fake-timers.js";

// Soak: the full recommended pipeline (resilience, tool-result, truncation, redaction) with chaos
// innermost injecting a fault into 20% of attempts: latency (half of it past the attempt timeout),
// exceptions carrying a secret and a stack, transient errors, and awkward results. Time is fake,
// so the figures below are counts, and the wall time is the cost of the framework itself.

const INVOKES = 10_000;
const RUNS = 1_000;
const MAX_ATTEMPTS = 3;
const SECRET = `sk-${"Zq7Rt2Lm9Xw4".repeat(3)}`;
const LEAK_MARKER = "CHAOS-LEAK";
const STACK_FILE = "secret-module.js";
const report = process.env.RELIABILITY_REPORT === "1";
// The real clock, taken before fake timers replace it, for the wall-time figures.
const realNow = performance.now.bind(performance);

let leakCount = 0;
function leakyError(): Error {
  const error = new Error(`${LEAK_MARKER}-${++leakCount}: connect failed, password=${SECRET} db.internal:5432`);
  error.stack = `Error: ${error.message}\n    at Pool.connect (/srv/app/${STACK_FILE}:12:7)`;
  return error;
}

function chaosFor(seed: number) {
  return chaosPlugin({
    rate: 0.2,
    faults: { latency: { ms: 0, maxMs: 1_000 }, exception: leakyError, transient: true, result: true },
    random: seededRandom(seed),
  });
}

const resilience = (seed: number) => ({
  retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 20, maxDelayMs: 100 },
  attemptTimeoutMs: 500,
  totalTimeoutMs: 2_000,
  circuitBreaker: { consecutiveFailures: 10, halfOpenAfterMs: 100 },
  random: seededRandom(seed),
});

/** Problems with what the model reads: the envelope's shape, and nothing of an exception or the secret. */
function textProblems(text: string, expected: { tool?: string; callId?: string }): string[] {
  const problems = envelopeProblems(text, { ...expected, maxAttempts: MAX_ATTEMPTS });
  if (text.includes(LEAK_MARKER)) problems.push("exception message leaked");
  if (text.includes(STACK_FILE) || /\n\s+at /.test(text)) problems.push("stack leaked");
  if (text.includes(SECRET)) problems.push("secret leaked");
  return problems;
}

interface Tracked<T> {
  done: boolean;
  value?: T;
  error?: unknown;
}

function track<T>(promise: Promise<T>): Tracked<T> {
  const state: Tracked<T> = { done: false };
  promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

/** Runs fake time until every timer has fired, then checks nothing is left hanging. */
async function settle(batch: readonly Tracked<unknown>[]): Promise<void> {
  await vi.runAllTimersAsync();
  await flushMicrotasks();
  const hanging = batch.filter((t) => !t.done).length;
  if (hanging > 0) throw new Error(`${hanging} calls never settled`);
}

let rejections: ReturnType<typeof watchUnhandledRejections>;
beforeEach(() => {
  rejections = watchUnhandledRejections();
  useFakeTimers();
});
afterEach(async () => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
  // Node reports an unhandled rejection after the microtask queue drains: give it two turns.
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setTimeout(resolve, 0));
  rejections.stop();
  expect(rejections.seen).toEqual([]);
});

describe("soak", () => {
  it(`${INVOKES} invokes with 20% injected faults: valid envelopes, no leaks, bounded attempts, only cancellation rejects`, async () => {
    const started = realNow();
    const world = new World();
    world.keepOrder = false;
    world.on("lookup", (args) => ({ ...args, apiKey: SECRET, note: `use key ${SECRET} for the retry` }));
    const chaos = chaosFor(1);
    const factory = buildFactory(world, { chaos, resilience: resilience(2) });
    const random = seededRandom(3);
    const statuses = new Map<string, number>();
    const problems: string[] = [];
    const signals: AbortSignal[] = [];
    let cancelled = 0;
    const BATCH = 250;

    for (let offset = 0; offset < INVOKES; offset += BATCH) {
      const batch: { tracked: Tracked<ToolOutcome>; name: string; callId: string; controller: AbortController }[] = [];
      for (let i = offset; i < offset + BATCH; i++) {
        const r = random();
        const [name, args] =
          r < 0.5
            ? ["lookup", { id: `r${i}` }]
            : r < 0.9
              ? ["charge", { id: `c${i}`, amount: i }]
              : r < 0.95
                ? ["charge", { id: `c${i}`, amount: "lots" }]
                : ["lookupp", { id: "x" }];
        const controller = new AbortController();
        signals.push(controller.signal);
        const abort = random();
        if (abort < 0.03) setTimeout(() => controller.abort(), Math.floor(random() * 600));
        const callId = `call_${i}`;
        batch.push({
          tracked: track(
            factory.tools.invoke({ name, arguments: args, callId }, { signal: controller.signal, runId: "soak" }),
          ),
          name,
          callId,
          controller,
        });
        // Aborted while the call is in flight, before any timer runs.
        if (abort > 0.97) controller.abort();
      }
      await settle(batch.map((b) => b.tracked));
      for (const { tracked, name, callId, controller } of batch) {
        if (tracked.error !== undefined || !tracked.value) {
          if (!(controller.signal.aborted && isAbortError(tracked.error)))
            problems.push(`${callId}: rejected with ${String(tracked.error)}`);
          cancelled++;
          continue;
        }
        const outcome = tracked.value;
        statuses.set(outcome.errorCode ?? outcome.status, (statuses.get(outcome.errorCode ?? outcome.status) ?? 0) + 1);
        for (const p of textProblems(factory.formatOutcome(outcome), { tool: name, callId }))
          problems.push(`${callId}: ${p}`);
        const needlr = formatToolOutcome(outcome, { style: "needlr" });
        try {
          JSON.parse(needlr);
        } catch {
          problems.push(`${callId}: needlr style is not JSON`);
        }
      }
    }

    expect(problems.slice(0, 20)).toEqual([]);
    expect(world.maxPerCall("charge")).toBeLessThanOrEqual(1);
    expect(world.maxPerCall("lookup")).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(signals.filter((s) => abortListeners(s) > 0)).toEqual([]);
    // The faults really happened, of every kind, and so did cancellation.
    expect(chaos.stats.injected / chaos.stats.calls).toBeGreaterThan(0.18);
    for (const kind of ["latency", "exception", "transient", "result"] as const)
      expect(chaos.stats.byKind[kind]).toBeGreaterThan(100);
    expect(cancelled).toBeGreaterThan(INVOKES * 0.005);
    // A timed-out non-idempotent tool reports OUTCOME_UNKNOWN (its effect may have happened), an idempotent one TIMEOUT.
    expect((statuses.get("TIMEOUT") ?? 0) + (statuses.get("OUTCOME_UNKNOWN") ?? 0)).toBeGreaterThan(0);
    expect(statuses.get("INVALID_ARGUMENTS")).toBeGreaterThan(0);
    if (report) {
      console.info(
        JSON.stringify({
          soak: "invokes",
          invokes: INVOKES,
          wallMs: Math.round(realNow() - started),
          attempts: chaos.stats.calls,
          faults: chaos.stats,
          cancelled,
          outcomes: Object.fromEntries([...statuses].sort()),
        }),
      );
    }
  }, 120_000);

  it(`${RUNS} agent runs with 20% injected faults: every run settles with a result or cancellation, nothing runs twice`, async () => {
    const started = realNow();
    const world = new World();
    world.keepOrder = false;
    world.on("lookup", (args) => ({ ...args, token: SECRET }));
    const chaos = chaosFor(11);
    const factory = buildFactory(world, { chaos, resilience: resilience(12) });
    const random = seededRandom(13);
    const problems: string[] = [];
    const statuses = new Map<string, number>();
    const signals: AbortSignal[] = [];
    let cancelled = 0;
    let rolledBack = 0;
    let rollbackFailed = 0;
    const BATCH = 50;
    const FORWARD = new Map([
      ["debit", "undoDebit"],
      ["credit", "undoCredit"],
      ["reserve", "undoReserve"],
    ]);

    for (let offset = 0; offset < RUNS; offset += BATCH) {
      const batch: { tracked: Tracked<AgentRunResult>; run: number; controller: AbortController }[] = [];
      for (let run = offset; run < offset + BATCH; run++) {
        const id = (n: number, k: number) => `r${run}_${n}_${k}`;
        const model = new ScriptedChatClient([
          {
            toolCalls: [
              { id: id(1, 1), name: "lookup", arguments: { id: `a${run}` } },
              { id: id(1, 2), name: "charge", arguments: { id: `b${run}`, amount: 10 } },
              { id: id(1, 3), name: "lookup", arguments: JSON.stringify({ id: `c${run}` }) },
            ],
          },
          {
            toolCalls: [
              { id: id(2, 1), name: "debit", arguments: { account: `x${run}`, amount: 5 } },
              { id: id(2, 2), name: "credit", arguments: { account: `y${run}`, amount: 5 } },
              { id: id(2, 3), name: "reserve", arguments: { account: `z${run}`, amount: 1 } },
            ],
          },
          { text: "Finished; the tool results above say which steps failed." },
          { text: "Some steps failed, as reported above." },
        ]);
        const agent = factory.createAgent({ name: "soak", instructions: "Soak.", chatClient: model });
        const controller = new AbortController();
        signals.push(controller.signal);
        const abort = random();
        if (abort < 0.05) setTimeout(() => controller.abort(), Math.floor(random() * 1_000));
        batch.push({
          tracked: track(agent.run("go", { signal: controller.signal, runId: `run_${run}` })),
          run,
          controller,
        });
        if (abort > 0.98) queueMicrotask(() => controller.abort());
      }
      await settle(batch.map((b) => b.tracked));
      for (const { tracked, run, controller } of batch) {
        if (tracked.error !== undefined || !tracked.value) {
          if (!(controller.signal.aborted && isAbortError(tracked.error)))
            problems.push(`run ${run}: rejected with ${String(tracked.error)}`);
          cancelled++;
          continue;
        }
        const result = tracked.value;
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (!["completed", "completed_with_failures", "escalated"].includes(result.status))
          problems.push(`run ${run}: ${result.status}`);
        for (const m of result.messages) {
          if (m.role !== "tool") continue;
          for (const p of textProblems(m.content, { tool: m.name, callId: m.toolCallId }))
            problems.push(`run ${run} ${m.toolCallId}: ${p}`);
        }
        for (const call of result.calls)
          if (call.attempts > MAX_ATTEMPTS) problems.push(`run ${run} ${call.callId}: ${call.attempts} attempts`);
        // All-or-nothing: every committed sibling of a failing round is rolled back once, or reported.
        for (const call of result.calls.filter((c) => FORWARD.has(c.tool))) {
          // Chaos may answer a compensation without running its body, so count the calls the runtime made, and the bodies.
          const undoCalls = result.calls.filter((c) => c.compensationFor === call.callId);
          const undoBodies = world.count(FORWARD.get(call.tool)!, `${call.callId}_undo`);
          if (undoCalls.length > 1 || undoBodies > 1)
            problems.push(`run ${run} ${call.callId}: compensated ${undoCalls.length} times, ${undoBodies} bodies`);
          if (call.errorCode === "ROLLED_BACK") {
            rolledBack++;
            if (undoCalls.length !== 1 || undoCalls[0]!.status !== "ok")
              problems.push(`run ${run} ${call.callId}: rolled back without one successful compensation`);
          }
          if (call.errorCode === "ROLLBACK_FAILED") rollbackFailed++;
          if (
            call.status === "ok" &&
            result.calls.some(
              (c) =>
                c.round === call.round && FORWARD.has(c.tool) && c.status !== "ok" && c.compensationFor === undefined,
            )
          ) {
            problems.push(
              `run ${run} ${call.callId}: committed in a failed all-or-nothing round and neither rolled back nor reported`,
            );
          }
        }
      }
    }

    expect(problems.slice(0, 20)).toEqual([]);
    expect(world.maxPerCall("charge")).toBeLessThanOrEqual(1);
    for (const undo of FORWARD.values()) expect(world.maxPerCall(undo)).toBeLessThanOrEqual(1);
    expect(signals.filter((s) => abortListeners(s) > 0)).toEqual([]);
    expect(chaos.stats.injected / chaos.stats.calls).toBeGreaterThan(0.18);
    expect(rolledBack).toBeGreaterThan(0);
    expect(cancelled).toBeGreaterThan(RUNS * 0.01);
    if (report) {
      console.info(
        JSON.stringify({
          soak: "agent runs",
          runs: RUNS,
          wallMs: Math.round(realNow() - started),
          attempts: chaos.stats.calls,
          faults: chaos.stats,
          cancelled,
          rolledBack,
          rollbackFailed,
          statuses: Object.fromEntries([...statuses].sort()),
        }),
      );
    }
  }, 120_000);
});
