import { DEFAULT_LEASE_MS } from "./run-journal.js";
import { runBusy } from "./run-store-error.js";

/**
 * A run's lease: who continues it, the take it was (`epoch`, the fencing token: every take adds
 * one), and until when (epoch ms) unless renewed. `owner` undefined: the run ended, or was never
 * leased; nobody may write until a new take. @internal
 */
export interface Lease {
  readonly owner: string | undefined;
  readonly epoch: number;
  readonly expires: number;
}

/** Checks a `leaseMs` store option: a whole number of ms from 1. @internal */
export function leaseMsOption(where: string, leaseMs: number | undefined): number {
  if (leaseMs === undefined) return DEFAULT_LEASE_MS;
  if (!Number.isInteger(leaseMs) || leaseMs < 1)
    throw new TypeError(
      `${where}: 'leaseMs' must be a whole number of milliseconds of at least 1 (got ${String(leaseMs)}).`,
    );
  return leaseMs;
}

/** What a take gives: the new lease, or how long the live one still has. @internal */
export type TakeResult = { readonly taken: Lease } | { readonly busyForMs: number };

/**
 * The lease rules every store applies, over leases kept in process (the memory store) or folded
 * from the journal (the file store); PostgreSQL applies the same rules in SQL:
 * - a take by `owner` succeeds when the run has no holder, its holder's lease expired, or `owner`
 *   holds it already (then it only extends it); any other take starts a new epoch;
 * - a renewal extends the holder's current lease only, and never takes a run back;
 * - a write is accepted from the current holder only (its epoch), expired or not (nobody else took
 *   it); ending a run leaves it without a holder, so nothing more lands until a new take.
 * @internal
 */
export const leaseRules = {
  take(current: Lease | undefined, owner: string, leaseMs: number, now = Date.now()): TakeResult {
    const epoch = current?.epoch ?? 0;
    if (current?.owner === owner) return { taken: { owner, epoch, expires: now + leaseMs } };
    if (current?.owner !== undefined && current.expires > now) return { busyForMs: current.expires - now };
    return { taken: { owner, epoch: epoch + 1, expires: now + leaseMs } };
  },
  /** The renewed lease, or undefined when `owner` no longer holds the run. */
  renew(current: Lease | undefined, owner: string, leaseMs: number, now = Date.now()): Lease | undefined {
    if (current?.owner !== owner) return undefined;
    return { owner, epoch: current.epoch, expires: now + leaseMs };
  },
  /** Throws `RUN_BUSY` (with the time the holder's lease has left) when a write by `owner` must be refused. */
  fence(runId: string, current: Lease | undefined, owner: string, now = Date.now()): void {
    if (current?.owner !== owner) throw runBusy(runId, current?.owner === undefined ? 0 : current.expires - now);
  },
};

/** Whether a run's last end is final: any end but a pause (`awaiting_approval`), which a resume re-opens. @internal */
export function endIsFinal(status: string | undefined): status is string {
  return status !== undefined && status !== "awaiting_approval";
}
