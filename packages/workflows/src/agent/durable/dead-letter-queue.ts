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
 * A dead-letter queue in memory: the default, one per agent (lost when the process ends).
 *
 * @example
 * ```ts
 * const deadLetters = new InMemoryDeadLetterQueue();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, deadLetters });
 * ```
 */
export class InMemoryDeadLetterQueue implements DeadLetterQueue {
  private readonly entries: DeadLetterEntry[] = [];

  async append(entry: DeadLetterEntry): Promise<void> {
    this.entries.push(entry);
  }

  async list(): Promise<readonly DeadLetterEntry[]> {
    return [...this.entries];
  }
}
