import { randomUUID } from "node:crypto";
import type { DurableExecution } from "../durable-execution.js";
import { journalExecution } from "../journal-execution.js";
import { JournalWriter } from "../journal-writer.js";
import { holdRecordedRun } from "../run-hold.js";
import { RunRecord } from "../run-record.js";
import type { RunJournal } from "../run-journal.js";

/**
 * What {@link durableExecutionContract} drives: one durable execution engine (or journal) that
 * runs attempts of runs. `open(runId)` starts an attempt of the run (the first, or, after `stop`, a
 * replay that finds what the earlier attempts made durable); `stop(execution)` ends an attempt as a
 * process that dies would leave it: what the execution made durable so far is kept, a call still
 * running is in flight.
 *
 * @example
 * ```ts
 * const harness: DurableExecutionHarness = journalExecutionHarness(new InMemoryRunStore().journal);
 * ```
 */
export interface DurableExecutionHarness {
  /** Starts an attempt of run `runId` (its first, or a replay of what earlier attempts recorded). */
  open(runId: string): Promise<DurableExecution>;
  /** Ends an attempt: the process running it stops (what it made durable stays). */
  stop(execution: DurableExecution): Promise<void>;
}

/** Opens a fresh harness for one test (a fresh store, engine namespace or workflow). */
export type OpenDurableExecution = () => Promise<DurableExecutionHarness>;

const AGENT = "contract-agent";

/**
 * The built-in journal as a {@link DurableExecutionHarness} over a store's `RunJournal` (in
 * memory, a file, PostgreSQL, or a third-party store): an attempt takes the run's lease (a new run
 * records its start first) and reads what the journal holds; `stop` gives the lease up as an
 * aborted run does.
 *
 * @example
 * ```ts
 * durableExecutionContract("FileRunStore journal", async () => journalExecutionHarness(new FileRunStore(dir).journal));
 * ```
 */
export function journalExecutionHarness(journal: RunJournal): DurableExecutionHarness {
  const writers = new WeakMap<DurableExecution, JournalWriter>();
  const key = new Uint8Array(32);
  return {
    async open(runId) {
      const owner = randomUUID();
      const found = await journal.read(runId);
      let execution: DurableExecution;
      let writer: JournalWriter;
      if (found === undefined) {
        const start = {
          runId,
          agent: AGENT,
          instructions: "Contract.",
          input: "Go.",
          startedAt: new Date(0).toISOString(),
        };
        writer = new JournalWriter(journal, runId, owner, start);
        if (!(await writer.begin(start))) throw new Error(`run ${runId} exists`);
        const record = new RunRecord(start);
        execution = journalExecution({ runId, record, writer, formatOutcome: (o) => JSON.stringify(o.data ?? null) });
      } else {
        const held = await holdRecordedRun(journal, runId, owner, AGENT, key);
        if ("ended" in held) throw new Error(`run ${runId} ended`);
        writer = held.writer;
        const record = new RunRecord(held.history, held.history);
        execution = journalExecution({
          runId,
          record,
          writer,
          history: held.history,
          formatOutcome: (o) => JSON.stringify(o.data ?? null),
        });
      }
      writers.set(execution, writer);
      return execution;
    },
    async stop(execution) {
      await writers.get(execution)?.stop();
    },
  };
}
