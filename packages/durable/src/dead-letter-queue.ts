/**
 * What a poisoned call leaves in the dead-letter queue: enough to replay or investigate it
 * without the run. `arguments` and `outcomes` have passed the factory's redaction.
 *
 * @example
 * ```ts
 * for (const entry of await agent.deadLetters.list()) console.log(entry.time, entry.tool, entry.errorCode);
 * ```
 */
export interface DeadLetterEntry {
  readonly runId: string;
  readonly agent: string;
  readonly tool: string;
  /** The call's arguments, after `redact`. */
  readonly arguments: unknown;
  /** The error code the call failed with every time. */
  readonly errorCode: string;
  /** The ids of the failing calls, oldest first. */
  readonly callIds: readonly string[];
  /** Each failure as the model read it (outcome envelopes), after `redact`. */
  readonly outcomes: readonly unknown[];
  /** When the entry was written, ISO 8601. */
  readonly time: string;
  /** One line for humans. */
  readonly reason: string;
}

/**
 * Where runs stopped as poison go. `append` must be durable when it resolves; `list` returns the
 * entries oldest first.
 *
 * @example
 * ```ts
 * const queue: DeadLetterQueue = { append: (e) => db.insert("dead_letters", e), list: () => db.all("dead_letters") };
 * ```
 */
export interface DeadLetterQueue {
  append(entry: DeadLetterEntry): Promise<void>;
  list(): Promise<readonly DeadLetterEntry[]>;
}

/**
 * A dead letter as a store keeps it: the entry, its id, and whether someone acknowledged it.
 *
 * @example
 * ```ts
 * for (const letter of await store.deadLetters.list({ acknowledged: false })) console.log(letter.id, letter.tool);
 * ```
 */
export interface StoredDeadLetter extends DeadLetterEntry {
  readonly id: string;
  /** ISO 8601, when someone acknowledged it. */
  readonly acknowledgedAt?: string;
  /** ISO 8601, when it was last replayed successfully or is being replayed (PostgreSQL's `replay`). */
  readonly replayedAt?: string;
  /**
   * Set when the store's codec cannot open this letter (another key, a damaged value): its payloads
   * (`arguments`, `outcomes`, `reason`, `callIds`) are placeholders, and it cannot be replayed. One
   * such letter never fails a whole `list()`.
   */
  readonly unreadable?: true;
}

/** What an unreadable letter's `reason` says. @internal */
export const UNREADABLE_LETTER = "(unreadable: the store's codec cannot open this letter)";

/**
 * A letter the store's codec could not open (another key, a damaged value), as a store lists it:
 * its readable columns only, placeholders for its payloads and `unreadable: true`, so one such
 * letter never fails a whole `list()` (a store that seals letters with `openDeadLetter` uses it).
 *
 * @example
 * ```ts
 * const seal = new PayloadSealer(codec, "redis:crm");
 * const letters = await Promise.all(rows.map((row) => openDeadLetter(seal, row).catch(() => unreadableLetter(row))));
 * ```
 */
export function unreadableLetter(letter: StoredDeadLetter): StoredDeadLetter {
  return {
    id: letter.id,
    runId: letter.runId,
    agent: letter.agent,
    tool: letter.tool,
    arguments: undefined,
    errorCode: letter.errorCode,
    callIds: [],
    outcomes: [],
    time: letter.time,
    reason: UNREADABLE_LETTER,
    ...(letter.acknowledgedAt === undefined ? {} : { acknowledgedAt: letter.acknowledgedAt }),
    ...(letter.replayedAt === undefined ? {} : { replayedAt: letter.replayedAt }),
    unreadable: true,
  };
}

/**
 * Which dead letters to list, oldest first; every field narrows, none means all.
 *
 * @example
 * ```ts
 * await store.deadLetters.list({ agent: "crm-sync", errorCode: "FORBIDDEN", acknowledged: false, limit: 50 });
 * ```
 */
export interface DeadLetterFilter {
  readonly agent?: string;
  readonly tool?: string;
  readonly errorCode?: string;
  readonly runId?: string;
  /** `false`: open letters only; `true`: acknowledged only. */
  readonly acknowledged?: boolean;
  /** Entries written at or after this time. */
  readonly since?: Date;
  /** Skip this many matching letters first (paging). Default 0. */
  readonly offset?: number;
  /** At most this many. Default: all (1000 for PostgreSQL). */
  readonly limit?: number;
}

/**
 * A dead-letter queue whose letters have ids and can be acknowledged: every built-in store's
 * (memory, file, PostgreSQL). What an operator, or the run inspector, works through.
 *
 * @example
 * ```ts
 * const open = await store.deadLetters.list({ acknowledged: false, limit: 20 });
 * if (open[0]) await store.deadLetters.acknowledge(open[0].id);
 * ```
 */
export interface ManagedDeadLetterQueue extends DeadLetterQueue {
  list(filter?: DeadLetterFilter): Promise<readonly StoredDeadLetter[]>;
  /** Marks a letter handled; `false` when there is no such letter or it already was. */
  acknowledge(id: string): Promise<boolean>;
}

/** Whether a letter passes a filter's conditions (not its offset and limit). @internal */
export function matchesDeadLetter(letter: StoredDeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.agent === undefined || letter.agent === filter.agent) &&
    (filter.tool === undefined || letter.tool === filter.tool) &&
    (filter.errorCode === undefined || letter.errorCode === filter.errorCode) &&
    (filter.runId === undefined || letter.runId === filter.runId) &&
    (filter.acknowledged === undefined || (letter.acknowledgedAt !== undefined) === filter.acknowledged) &&
    (filter.since === undefined || Date.parse(letter.time) >= filter.since.getTime())
  );
}

/** A filter's paging checked: `offset` and `limit` as non-negative integers. @internal */
export function deadLetterPage(owner: string, filter: DeadLetterFilter): { offset: number; limit: number } {
  const offset = filter.offset ?? 0;
  const limit = filter.limit ?? Number.POSITIVE_INFINITY;
  if (!Number.isInteger(offset) || offset < 0)
    throw new TypeError(`${owner}.list: \`offset\` must be a non-negative integer.`);
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isInteger(limit) || limit < 0))
    throw new TypeError(`${owner}.list: \`limit\` must be a non-negative integer.`);
  return { offset, limit };
}

/**
 * A dead-letter queue in memory: the default, one per agent (lost when the process ends).
 *
 * @example
 * ```ts
 * const deadLetters = new InMemoryDeadLetterQueue();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, deadLetters });
 * ```
 */
export class InMemoryDeadLetterQueue implements ManagedDeadLetterQueue {
  private readonly letters: StoredDeadLetter[] = [];
  private readonly replaying = new Set<string>();

  async append(entry: DeadLetterEntry): Promise<void> {
    this.letters.push({ ...entry, id: String(this.letters.length + 1) });
  }

  async list(filter: DeadLetterFilter = {}): Promise<readonly StoredDeadLetter[]> {
    const { offset, limit } = deadLetterPage("InMemoryDeadLetterQueue", filter);
    return this.letters.filter((l) => matchesDeadLetter(l, filter)).slice(offset, offset + limit);
  }

  /**
   * Replays a letter through `handler`, claimed first (a second replay meanwhile gets `false`); when
   * `handler` resolves it is acknowledged, when it throws the claim is released and the error
   * rethrown. `false` when the letter does not exist, is acknowledged, or is being replayed.
   */
  async replay(id: string, handler: (letter: StoredDeadLetter) => Promise<void>): Promise<boolean> {
    const letter = this.letters.find((l) => l.id === id);
    if (letter === undefined || letter.acknowledgedAt !== undefined || this.replaying.has(id)) return false;
    this.replaying.add(id);
    try {
      await handler(letter);
      await this.acknowledge(id);
      return true;
    } finally {
      this.replaying.delete(id);
    }
  }

  async acknowledge(id: string): Promise<boolean> {
    const at = this.letters.findIndex((l) => l.id === id);
    const letter = this.letters[at];
    if (letter === undefined || letter.acknowledgedAt !== undefined) return false;
    this.letters[at] = { ...letter, acknowledgedAt: new Date().toISOString() };
    return true;
  }
}
