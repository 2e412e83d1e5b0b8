import type { JournaledRun } from "./journaled-run.js";

/**
 * A call of the paused round. Calls with `requiresApproval` need a decision; the others run on
 * resume with the approved ones, under the round's policy.
 *
 * @example
 * ```ts
 * for (const p of result.pendingApprovals ?? []) await askReviewer(p.tool, p.arguments, p.callId);
 * ```
 */
export interface PendingApproval {
  readonly callId: string;
  readonly tool: string;
  readonly arguments: string | Record<string, unknown>;
  readonly requiresApproval: boolean;
  /** Why the call is put to a person, when a plugin's gate asked (the injection policy says what entered the run). */
  readonly reason?: string;
  /** The arguments whose values came from untrusted content (`usingInjectionPolicy({ afterUntrusted: "arguments" })`). */
  readonly untrustedArguments?: readonly string[];
}

/**
 * The journal a checkpoint carries: the paused run's start, its recorded turns and its calls with
 * their outcomes, as JSON (see `JournaledRun`). Read it like any journal; changing it breaks the
 * signature.
 *
 * @example
 * ```ts
 * console.log(checkpoint.journal.turns.length, "model turns before the pause");
 * ```
 */
export type CheckpointJournal = Omit<JournaledRun, "end">;

/**
 * A paused run, JSON-serializable and signed (HMAC-SHA256 over its canonical JSON): the signed,
 * serialized journal of the run (`journal`) and the pause (`pending`). Store it as text anywhere;
 * any agent built with the same `checkpointSecret` and tools can resume it, once (across processes,
 * once needs a shared `store`). A checkpoint of format 1 (a state snapshot, written before runs were
 * journal-first) is read as the journal it stands for and resumes the same way.
 *
 * @example
 * ```ts
 * await fs.writeFile("pending.json", JSON.stringify(result.checkpoint));
 * ```
 */
export interface AgentCheckpoint {
  readonly version: 2;
  /** Unique per checkpoint: the pause it is (a run that pauses twice has two). */
  readonly id: string;
  readonly agent: string;
  readonly runId: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** The paused round's calls, in the model's order. */
  readonly pending: readonly PendingApproval[];
  /** The run's journal up to the pause: resuming replays it (recorded turns and outcomes are not asked or run again). */
  readonly journal: CheckpointJournal;
  /** Hex HMAC-SHA256 of everything else. */
  readonly signature: string;
}
