import { isFailedOutcome, type JsonValue, toJsonSafe, toolOutcomeEnvelope } from "@needlework/core";
import type { Recovery, RunHealth } from "@needlework/core/events";
import { wasNotCalled } from "@needlework/durable";
import type { SettledCall } from "./run-round.js";
import { RUNTIME_CODES } from "./synthetic-outcomes.js";

/** A failure not yet cleared by a later success of the same tool with equal arguments. @internal */
export interface BlockingFailure {
  readonly key: string;
  readonly tool: string;
  readonly callId: string;
  readonly errorCode: string;
  readonly notCalled: boolean;
  /** The model turn of the first failure of this series. */
  readonly since: number;
}

/** How often one call (tool + equal arguments) failed with one code. @internal */
export interface PoisonCount {
  readonly key: string;
  readonly tool: string;
  readonly errorCode: string;
  readonly arguments: JsonValue;
  count: number;
  readonly callIds: string[];
  /** The failures as the model read them (envelopes, JSON-safe). */
  readonly outcomes: JsonValue[];
}

/** The run's failure bookkeeping; plain JSON so a checkpoint can carry it. @internal */
export interface LedgerState {
  blocking: BlockingFailure[];
  poison: PoisonCount[];
  recoveries: Recovery[];
  totals: { ok: number; failed: number; notCalled: number };
}

/** One round's counts. @internal */
export interface RoundCounts {
  readonly ok: number;
  readonly failed: number;
  readonly notCalled: number;
}

/**
 * The model got the call itself wrong: no tool ran, nothing is half done, so these never block
 * (they still count toward poison: a model repeating the same bad call is the guide's replan loop).
 */
const NON_BLOCKING = new Set(["UNKNOWN_TOOL", "INVALID_ARGUMENTS"]);

/** @internal */
export function emptyLedger(): LedgerState {
  return { blocking: [], poison: [], recoveries: [], totals: { ok: 0, failed: 0, notCalled: 0 } };
}

/** The run-wide health, as the result reports it. @internal */
export function runHealth(ledger: LedgerState): RunHealth {
  const { totals } = ledger;
  return {
    tools_ok: totals.ok,
    tools_failed: totals.failed,
    tools_not_called: totals.notCalled,
    blocking_failure: ledger.blocking.length > 0,
  };
}

/**
 * Books a settled round: failures block and count toward poison, then successes clear blocking
 * failures of the same call (recording steps-to-recovery), so a call that succeeded anywhere in the
 * round is not left blocking by a copy of it that failed in the same round, whatever order the
 * model listed them in: its effect landed (no false alarm). Returns the round's counts and the
 * calls that reached `poisonThreshold` in this round.
 * @internal
 */
export function bookRound(
  ledger: LedgerState,
  settled: readonly SettledCall[],
  turn: number,
  poisonThreshold: number,
): { counts: RoundCounts; poisoned: PoisonCount[] } {
  let ok = 0;
  let failed = 0;
  let notCalled = 0;
  const poisoned: PoisonCount[] = [];
  const failuresFirst = [
    ...settled.filter((s) => isFailedOutcome(s.outcome)),
    ...settled.filter((s) => !isFailedOutcome(s.outcome)),
  ];
  for (const { call, outcome } of failuresFirst) {
    if (!isFailedOutcome(outcome)) {
      ok++;
      const cleared = ledger.blocking.find((b) => b.key === call.key);
      if (cleared) {
        ledger.blocking = ledger.blocking.filter((b) => b !== cleared);
        ledger.recoveries.push({
          tool: call.name,
          failedCallId: cleared.callId,
          recoveredCallId: call.callId,
          steps: turn - cleared.since,
        });
      }
      continue;
    }
    const skipped = wasNotCalled(outcome);
    if (skipped) notCalled++;
    else failed++;
    const errorCode = outcome.errorCode ?? outcome.status.toUpperCase();
    if (!NON_BLOCKING.has(errorCode)) {
      const existing = ledger.blocking.find((b) => b.key === call.key);
      const entry: BlockingFailure = {
        key: call.key,
        tool: call.name,
        callId: existing?.callId ?? call.callId,
        errorCode,
        notCalled: skipped,
        since: existing?.since ?? turn,
      };
      ledger.blocking = [...ledger.blocking.filter((b) => b !== existing), entry];
    }
    if (outcome.status === "skipped" || outcome.status === "cancelled" || RUNTIME_CODES.has(errorCode)) continue;
    const poisonKey = JSON.stringify([call.key, errorCode]); // no NUL: the ledger is stored in checkpoints
    let counter = ledger.poison.find((p) => p.key === poisonKey);
    if (!counter) {
      counter = {
        key: poisonKey,
        tool: call.name,
        errorCode,
        arguments: toJsonSafe(call.arguments),
        count: 0,
        callIds: [],
        outcomes: [],
      };
      ledger.poison.push(counter);
    }
    counter.count++;
    counter.callIds.push(call.callId);
    counter.outcomes.push(toJsonSafe(toolOutcomeEnvelope(outcome)));
    if (counter.count === poisonThreshold) poisoned.push(counter);
  }
  ledger.totals.ok += ok;
  ledger.totals.failed += failed;
  ledger.totals.notCalled += notCalled;
  return { counts: { ok, failed, notCalled }, poisoned };
}
