import type {
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
} from "./run-journal.js";

/**
 * One line of a journal kept as a record stream (memory, file). `by` names the take (lease owner)
 * that wrote it, where the store fences at read time (the file store); a `lease` record is a take:
 * its `epoch` is one more than the last. @internal
 */
export type JournalRecord = (
  | ({ readonly kind: "start"; readonly expires?: number } & JournaledRunStart)
  | { readonly kind: "turn"; readonly turn: JournaledTurn }
  | { readonly kind: "call"; readonly call: JournaledCallStart }
  | { readonly kind: "outcome"; readonly outcome: JournaledOutcome }
  | { readonly kind: "end"; readonly end: JournaledRunEnd }
  | { readonly kind: "lease"; readonly epoch: number; readonly expires: number }
) & { readonly by?: string };

/**
 * The lease as a record stream says it is, folded record by record: which take holds the run (the
 * last `lease` record with a higher epoch than any before it, or the start's writer), and whether a
 * record counts. Once a record names its take (`by`), a record counts only when its take is the
 * current one and the run has not ended since: a stalled writer whose check passed just before
 * another process took the run over still cannot land a record (fencing at read, for stores where
 * checking and appending are not one step). Records of a journal written before fencing (no `by`)
 * count as they are. @internal
 */
export class LeaseFold {
  holder: string | undefined;
  epoch = 0;
  /** When the current take's lease expires unless renewed (epoch ms; 0 when unknown). */
  expires = 0;
  /** The status of the run's last end, until a take re-opens it (only a pause can be re-opened). */
  ended: string | undefined;
  private fenced = false;

  /** Whether `record` counts; updates the lease state. */
  admit(record: JournalRecord): boolean {
    if (record.kind === "lease") {
      // A final end is final: no take after it counts (only a pause, awaiting_approval, re-opens).
      if (this.ended !== undefined && this.ended !== "awaiting_approval") return false;
      // Two takes of the same epoch (a race): the first in the stream wins, the other never counts.
      if (record.by === undefined || record.epoch <= this.epoch) return false;
      this.fenced = true;
      this.holder = record.by;
      this.epoch = record.epoch;
      this.expires = record.expires;
      this.ended = undefined;
      return true;
    }
    if (record.kind === "start") {
      if (record.by !== undefined) {
        this.fenced = true;
        this.holder = record.by;
        this.epoch = 1;
        this.expires = record.expires ?? 0;
      }
      return true;
    }
    if (this.fenced && (record.by === undefined || record.by !== this.holder)) return false;
    if (record.kind === "end" && this.fenced) this.holder = undefined; // ended: nothing lands until a new take
    if (record.kind === "end") this.ended = record.end.status;
    return true;
  }
}

/**
 * Folds a run's records, in the order written, into a {@link JournaledRun}; `undefined` without a
 * start record. A later record for the same turn or call replaces the earlier one.
 * @internal
 */
export function foldJournal(records: readonly JournalRecord[]): JournaledRun | undefined {
  let start: JournaledRunStart | undefined;
  const turns = new Map<number, JournaledTurn>();
  const calls = new Map<string, JournaledCall>();
  let end: JournaledRunEnd | undefined;
  const lease = new LeaseFold();
  for (const record of records) {
    if (!lease.admit(record)) continue;
    switch (record.kind) {
      case "start": {
        const { kind: _kind, by: _by, expires: _expires, ...rest } = record;
        start = rest;
        break;
      }
      case "turn":
        turns.set(record.turn.index, record.turn);
        break;
      case "call": {
        const settled = calls.get(record.call.callId)?.outcome;
        calls.set(record.call.callId, settled === undefined ? record.call : { ...record.call, outcome: settled });
        break;
      }
      case "outcome": {
        const { callId } = record.outcome;
        const call = calls.get(callId);
        // An outcome without a start (a runtime-made outcome) is kept with what it says about itself.
        const meta = record.outcome.outcome.metadata;
        calls.set(callId, {
          ...(call ?? {
            callId,
            tool: String(meta["tool"] ?? ""),
            arguments: null,
            idempotencyKey: record.outcome.idempotencyKey ?? String(meta["idempotencyKey"] ?? ""),
          }),
          outcome: record.outcome,
        });
        break;
      }
      case "end":
        end = record.end;
        break;
      case "lease":
        break;
    }
  }
  if (start === undefined) return undefined;
  return {
    ...start,
    turns: [...turns.values()].sort((a, b) => a.index - b.index),
    calls: [...calls.values()],
    ...(end ? { end } : {}),
  };
}
