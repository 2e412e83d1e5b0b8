// The writer is what makes a run's records durable in the order a resume relies on, in as few commits
// as the journal allows: a round's call starts before any body runs, outcomes before the next turn.
import { describe, expect, it } from "vitest";
import { JournalWriter } from "./journal-writer.js";
import type {
  JournalCommit,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "./run-journal.js";
import { RunStoreError } from "./run-store-error.js";

const start: JournaledRunStart = {
  runId: "run_1",
  agent: "crm",
  instructions: "Be brief.",
  input: "Where is o1?",
  startedAt: "2026-01-01T00:00:00.000Z",
};
const call = (callId: string): JournaledCallStart => ({
  callId,
  tool: "updateOrder",
  arguments: {},
  idempotencyKey: callId,
});
const outcome = (callId: string): JournaledOutcome => ({
  callId,
  idempotencyKey: callId,
  outcome: { status: "ok", retriable: false, metadata: {} },
  formatted: "ok",
});
const turn = (index: number): JournaledTurn => ({ index, message: { role: "assistant", content: "hi" } });

/** A journal that records what it is asked to write, in order. */
function recordingJournal(options: {
  commits: boolean;
  commit?: () => Promise<boolean>;
  outcomes?: () => Promise<void>;
}) {
  const writes: { kind: string; records?: JournalCommit | readonly unknown[] | unknown }[] = [];
  const journal = {
    leaseMs: 30_000,
    runStarted: async () => true,
    lease: async () => true,
    renew: async () => true,
    release: async () => void writes.push({ kind: "release" }),
    turn: async (_runId: string, t: JournaledTurn) => void writes.push({ kind: "turn", records: t }),
    callsStarted: async (_runId: string, calls: readonly JournaledCallStart[]) =>
      void writes.push({ kind: "callsStarted", records: calls }),
    outcomes: async (_runId: string, outcomes: readonly JournaledOutcome[]) => {
      await options.outcomes?.();
      writes.push({ kind: "outcomes", records: outcomes });
    },
    runEnded: async () => void writes.push({ kind: "runEnded" }),
    read: async () => undefined,
    list: async () => ({ runs: [] }),
    ...(options.commits
      ? {
          commit: async (_runId: string, records: JournalCommit) => {
            writes.push({ kind: "commit", records });
            return options.commit === undefined ? true : options.commit();
          },
        }
      : {}),
  } as unknown as RunJournal;
  return { journal, writes };
}

describe("JournalWriter on a journal that commits", () => {
  it("writes a new run's start with its first round's call starts in one commit, and its end with the release in another", async () => {
    const { journal, writes } = recordingJournal({ commits: true });
    const writer = new JournalWriter(journal, "run_1", "owner_1", start);
    await Promise.all([writer.callStarted(call("c1")), writer.callStarted(call("c2"))]);
    expect(writes).toEqual([{ kind: "commit", records: { start, calls: [call("c1"), call("c2")] } }]);

    writer.outcome(outcome("c1"));
    writer.outcome(outcome("c2"));
    await writer.end({ status: "completed", endedAt: start.startedAt, result: null });
    await writer.stop();
    expect(writes.slice(1)).toEqual([
      {
        kind: "commit",
        records: {
          outcomes: [outcome("c1"), outcome("c2")],
          end: { status: "completed", endedAt: start.startedAt, result: null },
          release: true,
        },
      },
    ]);
  });

  it("refuses a new run whose id the journal holds already with RUN_EXISTS", async () => {
    const { journal } = recordingJournal({ commits: true, commit: async () => false });
    const writer = new JournalWriter(journal, "run_1", "owner_1", start);
    const refused = await writer.callStarted(call("c1")).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RunStoreError.isInstance(refused) && refused.code).toBe("RUN_EXISTS");
    await expect(writer.stop()).rejects.toMatchObject({ code: "RUN_EXISTS" });
  });
});

describe("JournalWriter on a journal without commit", () => {
  it("writes a turn only after the outcomes before it", async () => {
    let settle = (): void => undefined;
    const slow = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const { journal, writes } = recordingJournal({ commits: false, outcomes: () => slow });
    const writer = new JournalWriter(journal, "run_1", "owner_1");
    writer.outcome(outcome("c1"));
    const turned = writer.turn(turn(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([]);
    settle();
    await turned;
    expect(writes.map((w) => w.kind)).toEqual(["outcomes", "turn"]);
  });

  it("surfaces an outcome write that failed at the next turn, which is not written", async () => {
    const failure = new RunStoreError("RUN_BUSY", "Another process holds run_1.");
    const { journal, writes } = recordingJournal({ commits: false, outcomes: () => Promise.reject(failure) });
    const writer = new JournalWriter(journal, "run_1", "owner_1");
    writer.outcome(outcome("c1"));
    await expect(writer.turn(turn(1))).rejects.toBe(failure);
    expect(writes.filter((w) => w.kind === "turn")).toEqual([]);
  });
});

describe("JournalWriter: a cancel request", () => {
  /** A memory journal that says when it has been renewed `count` more times. */
  async function countingJournal() {
    const { InMemoryRunJournal } = await import("./in-memory-run-store.js");
    const waiters: { left: number; resolve: () => void }[] = [];
    const journal = new (class extends InMemoryRunJournal {
      override async renew(runId: string, owner: string): Promise<boolean> {
        const held = await super.renew(runId, owner);
        for (const waiter of waiters.splice(0))
          if (--waiter.left > 0) waiters.push(waiter);
          else waiter.resolve();
        return held;
      }
    })({ leaseMs: 30 });
    const renewals = (count: number) => new Promise<void>((resolve) => waiters.push({ left: count, resolve }));
    return { journal, renewals };
  }

  it("is read at a renewal and handed on once", async () => {
    const { journal, renewals } = await countingJournal();
    await journal.runStarted(start, "w1");
    const writer = new JournalWriter(journal, start.runId, "w1");
    const seen: unknown[] = [];
    const handed = new Promise<void>((resolve) =>
      writer.watchCancel((request) => {
        seen.push(request);
        resolve();
      }),
    );
    writer.startRenewing();
    await journal.requestCancel(start.runId, { by: "Ada", at: "2026-01-01T00:00:01.000Z" });
    await handed;
    await renewals(3); // more renewals, each reading the request again: it is not handed on again
    expect(seen).toEqual([{ by: "Ada", at: "2026-01-01T00:00:01.000Z" }]);
    await writer.stop();
  });

  it("is never handed on after the writer stopped", async () => {
    const { journal, renewals } = await countingJournal();
    await journal.runStarted(start, "w1");
    const other = { ...start, runId: "run_2" };
    await journal.runStarted(other, "w2");
    const stopped = new JournalWriter(journal, other.runId, "w2");
    let called = false;
    stopped.watchCancel(() => (called = true));
    stopped.startRenewing();
    await stopped.stop();
    await journal.requestCancel(other.runId, { by: "Ada", at: "2026-01-01T00:00:02.000Z" });
    // Another writer's renewals go on: the stopped one's do not, and it hands nothing on.
    const live = new JournalWriter(journal, start.runId, "w1");
    live.startRenewing();
    await renewals(3);
    await live.stop();
    expect(called).toBe(false);
  });
});
