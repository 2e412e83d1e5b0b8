import { InMemoryDeadLetterQueue } from "./dead-letter-queue.js";
import { InMemoryResumedCheckpointStore } from "../approvals/claims.js";
import { foldJournal, type JournalRecord } from "./journal-records.js";
import type {
  AgentStore,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "./run-journal.js";

/**
 * A run journal in memory: runs survive a crashed run (an aborted `run()`), not the process.
 * Records are copied, so later changes to the objects passed in do not reach the journal.
 *
 * @example
 * ```ts
 * const journal = new InMemoryRunJournal();
 * console.log(await journal.read("run_1"));
 * ```
 */
export class InMemoryRunJournal implements RunJournal {
  private readonly runs = new Map<string, JournalRecord[]>();

  async runStarted(start: JournaledRunStart): Promise<boolean> {
    if (this.runs.has(start.runId)) return false;
    this.runs.set(start.runId, [structuredClone({ kind: "start", ...start })]);
    return true;
  }

  async turn(runId: string, turn: JournaledTurn): Promise<void> {
    this.append(runId, { kind: "turn", turn });
  }

  async callStarted(runId: string, call: JournaledCallStart): Promise<void> {
    this.append(runId, { kind: "call", call });
  }

  async outcome(runId: string, outcome: JournaledOutcome): Promise<void> {
    this.append(runId, { kind: "outcome", outcome });
  }

  async runEnded(runId: string, end: JournaledRunEnd): Promise<void> {
    this.append(runId, { kind: "end", end });
  }

  async read(runId: string): Promise<JournaledRun | undefined> {
    const records = this.runs.get(runId);
    return records === undefined ? undefined : structuredClone(foldJournal(records));
  }

  private append(runId: string, record: JournalRecord): void {
    const records = this.runs.get(runId);
    if (records === undefined)
      throw new TypeError(`InMemoryRunJournal: run '${runId}' was never started in this journal.`);
    records.push(structuredClone(record));
  }
}

/**
 * An {@link AgentStore} in memory: a run journal, dead letters and checkpoint claims for one
 * process. Agents sharing it can resume each other's runs (`agent.resumeRun(runId)`).
 *
 * @example
 * ```ts
 * const store = new InMemoryRunStore();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export class InMemoryRunStore implements AgentStore {
  readonly journal = new InMemoryRunJournal();
  readonly deadLetters = new InMemoryDeadLetterQueue();
  readonly resumedCheckpoints = new InMemoryResumedCheckpointStore();
}
