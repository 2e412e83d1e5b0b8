import { DEFAULT_LEASE_MS } from "./run-journal.js";
import { runBusy } from "./run-store-error.js";

/** A run's lease: who continues it, and until when (epoch ms) unless renewed. @internal */
export interface Lease {
  readonly owner: string;
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

/**
 * The lease rules every store applies, over leases kept in process (the memory store) or read
 * from disk (the file store): `owner` may take a run that is free, its own, or whose other holder's
 * lease expired (or was given up: its name stays, expired); a write by `owner` is refused whenever
 * another owner's name is on the lease, expired or not, so a late writer never lands after a takeover
 * or after the run ended.
 * @internal
 */
export const leaseRules = {
  /** The lease `owner` takes now, or undefined when another owner's lease is live. */
  take(current: Lease | undefined, owner: string, leaseMs: number, now = Date.now()): Lease | undefined {
    if (current !== undefined && current.owner !== owner && current.expires > now) return undefined;
    return { owner, expires: now + leaseMs };
  },
  /** Throws `RUN_BUSY` when a write by `owner` must be refused (fencing). */
  fence(runId: string, current: Lease | undefined, owner: string): void {
    if (current !== undefined && current.owner !== owner) throw runBusy(runId);
  },
};
