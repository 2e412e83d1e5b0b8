/*
 * What the routes share over one store: the journal (opened with the codec when given), dead letters
 * read page by page, the agents to act with, the action log, and a signal to wake the push streams.
 */
import { EventEmitter } from "node:events";
import type { AgentStore, DeadLetterFilter, JournaledRun, RunJournal, StoredDeadLetter } from "@needlework/durable";
import { codecJournal, openDeadLetter, PayloadSealer } from "@needlework/durable";
import { type ActionLog, defaultActionLog, type NewAction, newRecord } from "./action-log.js";
import type { InspectedAgent } from "./inspected-agent.js";
import type { InspectorSettings } from "./inspector-options.js";
import { HttpError, isManaged, leaseExpired } from "./request.js";
import { type ActionRecord, type RunStats, runStats, UNREADABLE } from "./run-view.js";

/** A row of the runs list: the summary and the run's figures. */
export interface ListRow {
  readonly runId: string;
  readonly status: string;
  readonly stats?: RunStats;
}

/** What every route reads and acts through. */
export interface Inspection {
  readonly store: AgentStore;
  /** The store's journal, opened with the codec when one was given. */
  readonly journal: RunJournal;
  readonly letters: AgentStore["deadLetters"];
  /** The agents given, by name. */
  readonly byName: ReadonlyMap<string, InspectedAgent>;
  /** Whether a token is required (then who acts is `... (token holder)`). */
  readonly tokenSet: boolean;
  /** Letters being replayed in this process. */
  readonly replaying: Set<string>;
  /** Emits `change` after this inspector changed something: the push streams look at once. */
  readonly changed: EventEmitter;
  actionsOf(): Promise<ActionLog>;
  readRun(runId: string): Promise<JournaledRun | undefined>;
  readLetters(filter: DeadLetterFilter): Promise<readonly StoredDeadLetter[]>;
  findLetter(id: string): Promise<StoredDeadLetter | undefined>;
  journalAction(action: NewAction): Promise<ActionRecord>;
  agentFor(name: string): InspectedAgent;
  listRow(summary: { runId: string; status: string; endedAt?: string }): Promise<ListRow>;
}

/** The shared state of one inspector over `settings.store`. */
export function inspection(settings: InspectorSettings): Inspection {
  const { store, codec, agents } = settings;
  const givenActions = settings.actions;
  // Sealed values are bound to their store: open them as the store it names (`storeId()`).
  const storeId = async (): Promise<string> => (typeof store.storeId === "function" ? store.storeId() : "");
  const journal: RunJournal = codec ? codecJournal(store.journal, codec, { store: storeId }) : store.journal;
  const seal = codec ? new PayloadSealer(codec, storeId) : undefined;
  const letters = store.deadLetters;
  const byName = new Map<string, InspectedAgent>();
  for (const agent of agents) byName.set(agent.name, agent);
  let actionLog: ActionLog | undefined = givenActions;
  const actionsOf = async (): Promise<ActionLog> => {
    actionLog ??= await defaultActionLog(store);
    return actionLog;
  };
  const replaying = new Set<string>();
  /** Wakes the push streams at once after this inspector changed something. */
  const changed = new EventEmitter();
  changed.setMaxListeners(0);

  const readRun = async (runId: string): Promise<JournaledRun | undefined> =>
    journal.read(runId).catch((error: unknown) => {
      // A payload this codec cannot open (another key, or no codec given): the run without its payloads.
      if ((error as { code?: unknown }).code === "PAYLOAD_UNREADABLE") return store.journal.read(runId);
      throw error;
    });

  /** One letter opened with the codec; one it cannot open is shown unreadable, never failing the list. */
  const opened = async (letter: StoredDeadLetter): Promise<StoredDeadLetter & { unreadable?: true }> => {
    // One the store's own codec could not open (listed, never failing the list).
    if (letter.unreadable) return { ...letter, arguments: UNREADABLE, outcomes: [], reason: UNREADABLE };
    if (!seal) return letter;
    try {
      return await openDeadLetter(seal, letter);
    } catch {
      return { ...letter, arguments: UNREADABLE, outcomes: [], reason: UNREADABLE, unreadable: true };
    }
  };

  const readLetters = async (filter: DeadLetterFilter): Promise<readonly StoredDeadLetter[]> => {
    let list: readonly StoredDeadLetter[];
    if (isManaged(letters)) {
      try {
        list = await letters.list(filter);
      } catch (error) {
        // A store that opens letters itself (given a codec) fails its whole page on one it cannot
        // open: read the page one letter at a time, and show that one unreadable.
        if ((error as { code?: unknown }).code !== "PAYLOAD_UNREADABLE") throw error;
        const offset = filter.offset ?? 0;
        const one: StoredDeadLetter[] = [];
        for (let i = 0; i < (filter.limit ?? 50); i++) {
          const page = await letters.list({ ...filter, offset: offset + i, limit: 1 }).catch((e: unknown) => {
            if ((e as { code?: unknown }).code !== "PAYLOAD_UNREADABLE") throw e;
            return [
              {
                id: `unreadable-${offset + i}`,
                runId: "",
                agent: "",
                tool: "",
                arguments: UNREADABLE,
                errorCode: "PAYLOAD_UNREADABLE",
                callIds: [],
                outcomes: [],
                time: new Date(0).toISOString(),
                reason: UNREADABLE,
              },
            ];
          });
          if (page.length === 0) break;
          one.push(...page);
        }
        list = one;
      }
    } else {
      // A queue of your own lists everything, with no ids and nothing acknowledged: page it here.
      const offset = filter.offset ?? 0;
      const all = filter.acknowledged === true ? [] : await letters.list();
      const matching = filter.runId === undefined ? all : all.filter((l) => l.runId === filter.runId);
      list = matching
        .slice(offset, offset + (filter.limit ?? matching.length))
        .map((l, i) => ({ ...l, id: String(offset + i + 1) }));
    }
    return Promise.all(list.map(opened));
  };

  const findLetter = async (id: string): Promise<StoredDeadLetter | undefined> => {
    // The queue's contract lists by filter, not by id: page through the open letters.
    let found: StoredDeadLetter | undefined;
    for (let offset = 0, more = true; more && found === undefined; offset += 200) {
      const page = await readLetters({ acknowledged: false, offset, limit: 200 });
      found = page.find((l) => l.id === id);
      more = page.length === 200;
    }
    return found;
  };

  const journalAction = async (action: NewAction): Promise<ActionRecord> => {
    const record = newRecord(action);
    await (await actionsOf()).append(record);
    changed.emit("change");
    return record;
  };

  const agentFor = (name: string): InspectedAgent => {
    const agent = byName.get(name);
    if (!agent)
      throw new HttpError(
        409,
        `This inspector was not given the agent '${name}': start it with startInspector({ store, agents: [...] }) to act on its runs.`,
        "AGENT_NOT_GIVEN",
      );
    return agent;
  };

  /** A row of the runs list: the summary and the run's figures. */
  // An ended run's figures do not change until it ends again (a paused run resumed gets a new end
  // time): kept by run id and end time, so a list (and each push of it) reads only the runs that changed.
  const STATS_KEPT = 10_000;
  const statsOfEnded = new Map<string, RunStats>();
  const listRow = async (summary: {
    runId: string;
    status: string;
    endedAt?: string;
  }): Promise<{ runId: string; status: string; stats?: RunStats }> => {
    const key = summary.endedAt === undefined ? undefined : `${summary.runId}\u0000${summary.endedAt}`;
    let stats = key === undefined ? undefined : statsOfEnded.get(key);
    if (stats === undefined) {
      const run = await readRun(summary.runId).catch(() => undefined);
      stats = run && runStats(run);
      if (stats && key !== undefined && run?.end) {
        if (statsOfEnded.size >= STATS_KEPT) statsOfEnded.delete(statsOfEnded.keys().next().value!);
        statsOfEnded.set(key, stats);
      }
    }
    const interrupted = summary.status === "running" && (await leaseExpired(store.journal, summary.runId));
    return {
      ...summary,
      ...(interrupted ? { status: "interrupted", interrupted: true } : {}),
      ...(stats ? { stats } : { unreadable: true }),
    };
  };

  return {
    store,
    journal,
    letters,
    byName,
    tokenSet: settings.token !== undefined,
    replaying,
    changed,
    actionsOf,
    readRun,
    readLetters,
    findLetter,
    journalAction,
    agentFor,
    listRow,
  };
}
