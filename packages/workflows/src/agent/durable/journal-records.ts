import type {
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
} from "./run-journal.js";

/** One line of a journal kept as a record stream (memory, file). @internal */
export type JournalRecord =
  | ({ readonly kind: "start" } & JournaledRunStart)
  | { readonly kind: "turn"; readonly turn: JournaledTurn }
  | { readonly kind: "call"; readonly call: JournaledCallStart }
  | { readonly kind: "outcome"; readonly outcome: JournaledOutcome }
  | { readonly kind: "end"; readonly end: JournaledRunEnd };

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
  for (const record of records) {
    switch (record.kind) {
      case "start": {
        const { kind: _kind, ...rest } = record;
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
            idempotencyKey: String(meta["idempotencyKey"] ?? ""),
          }),
          outcome: record.outcome,
        });
        break;
      }
      case "end":
        end = record.end;
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
