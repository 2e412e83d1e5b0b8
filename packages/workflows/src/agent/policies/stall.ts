import { createHash } from "node:crypto";
import { toJsonSafe } from "@needlework/core";
import { canonicalJson } from "../canonical-json.js";
import type { SettledCall } from "../loop/run-round.js";

/**
 * Consecutive identical rounds that end a run `stalled`, by default. Three, like
 * `poisonThreshold`: one repeat can be a legitimate re-check (the model verifies a write), but a
 * second repeat means the model twice got nothing new and is looping; a failing loop and a
 * succeeding one are then cut at the same point, and with `maxIterations` 10 the run still saves
 * most of its turns.
 * @internal
 */
export const DEFAULT_STALL_THRESHOLD = 3;

/** The stall tracker's state; plain JSON so a checkpoint carries it. @internal */
export interface StallState {
  /** Hash of the last round's calls and outcomes. */
  signature: string;
  /** Consecutive rounds with that signature. */
  count: number;
  /** The last round's calls, for the reason. */
  calls: string[];
}

/** @internal */
export function emptyStall(): StallState {
  return { signature: "", count: 0, calls: [] };
}

const MAX_KEYS = 6;

/**
 * The argument names only (`{s, n}`): values may hold secrets, and the reason reaches
 * `result.reason`, logs and run reports, which never see raw arguments.
 */
function argumentShape(canonical: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(canonical);
  } catch {
    return "…";
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return "…";
  const keys = Object.keys(parsed).filter((k) => /^[A-Za-z_$][\w$]{0,40}$/.test(k));
  const shown = keys.slice(0, MAX_KEYS).join(", ");
  return `{${keys.length > MAX_KEYS ? `${shown}, …` : shown}}`;
}

/** `tool({argument names}) -> status[/CODE]`, as the reason names a repeated call. */
function describeCall({ call, outcome }: SettledCall): string {
  const [, args] = JSON.parse(call.key) as [string, string]; // see callKey
  return `${call.name}(${argumentShape(args)}) -> ${outcome.status}${outcome.errorCode === undefined ? "" : `/${outcome.errorCode}`}`;
}

/**
 * What makes two rounds "the same": the multiset of (tool, canonical arguments, status, error
 * code, returned data). Call ids, latency and attempts are left out: they differ on every round
 * without the model learning anything new. The order of the calls in the round does not matter.
 */
function roundSignature(settled: readonly SettledCall[]): string {
  const parts = settled.map(({ call, outcome }) => {
    let data: string;
    try {
      data = outcome.data === undefined ? "" : canonicalJson(toJsonSafe(outcome.data));
    } catch {
      data = "?";
    }
    return `${call.key}\u0001${outcome.status}\u0001${outcome.errorCode ?? ""}\u0001${data}`;
  });
  return createHash("sha256").update(parts.sort().join("\u0002")).digest("hex");
}

/**
 * Books a round; returns the repeated calls (described) when this round makes `threshold`
 * consecutive identical rounds, else `undefined`. `threshold` false turns detection off.
 * @internal
 */
export function trackStall(
  state: StallState,
  settled: readonly SettledCall[],
  threshold: number | false,
): string[] | undefined {
  if (threshold === false || settled.length === 0) return undefined;
  const signature = roundSignature(settled);
  if (signature === state.signature) state.count++;
  else {
    state.signature = signature;
    state.count = 1;
  }
  state.calls = settled.map(describeCall);
  return state.count >= threshold ? [...state.calls] : undefined;
}

/** A turn without tool calls breaks a series of identical rounds. @internal */
export function resetStall(state: StallState): void {
  state.signature = "";
  state.count = 0;
  state.calls = [];
}
