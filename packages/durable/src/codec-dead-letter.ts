import type { PayloadSealer } from "./codec-journal.js";
import type { PayloadContext } from "./payload-codec.js";

// A dead letter's payloads (arguments, outcomes, reason, and the call ids the model chose) sealed
// with the journal's sealer, in a store area of their own.
const DEAD_LETTER_NAMESPACE = "dead-letter";

/**
 * A dead-letter entry with its payloads (arguments, outcomes, reason) sealed; the rest stays readable.
 *
 * @example
 * ```ts
 * await insertLetter(await sealDeadLetter(seal, entry));
 * ```
 */
export async function sealDeadLetter<T extends DeadLetterShape>(seal: PayloadSealer, entry: T): Promise<T> {
  // Names the model chose stay sealed: the calls' ids, and the name of a tool the agent does not know.
  const tool = entry.errorCode === "UNKNOWN_TOOL" ? "" : entry.tool;
  const at = (kind: string) => letterAt(entry.runId, tool, kind);
  return {
    ...entry,
    tool,
    callIds: [await seal.text(JSON.stringify({ tool: entry.tool, callIds: entry.callIds }), at("dead-letter.calls"))],
    arguments: await seal.value(entry.arguments, at("dead-letter.arguments")),
    outcomes: [await seal.value(entry.outcomes, at("dead-letter.outcomes"))],
    reason: await seal.text(entry.reason, at("dead-letter.reason")),
  };
}

/** What sealing a dead letter reads of it. */
interface DeadLetterShape {
  readonly runId: string;
  readonly tool: string;
  readonly errorCode: string;
  readonly callIds: readonly string[];
  readonly arguments: unknown;
  readonly outcomes: readonly unknown[];
  readonly reason: string;
}

/** A dead letter's field's place: its run and its tool (as stored, with the readable columns). */
function letterAt(runId: string, tool: string, kind: string): PayloadContext {
  return { namespace: DEAD_LETTER_NAMESPACE, runId: String(runId), kind, ref: String(tool) };
}

/**
 * A dead-letter entry as `sealDeadLetter` was given it; `RunStoreError` `PAYLOAD_UNSEALED` when a
 * payload is in clear.
 *
 * @example
 * ```ts
 * const letter = await openDeadLetter(seal, row.entry);
 * ```
 */
export async function openDeadLetter<T extends DeadLetterShape>(seal: PayloadSealer, entry: T): Promise<T> {
  const at = (kind: string) => letterAt(entry.runId, entry.tool, kind);
  const one = (list: unknown): unknown => (Array.isArray(list) && list.length === 1 ? list[0] : undefined);
  const calls = JSON.parse(await seal.openText(one(entry.callIds) as string, at("dead-letter.calls"))) as {
    tool: string;
    callIds: string[];
  };
  return {
    ...entry,
    tool: calls.tool,
    callIds: calls.callIds,
    arguments: await seal.openValue(entry.arguments, at("dead-letter.arguments")),
    outcomes: await seal.openValue<unknown[]>(one(entry.outcomes), at("dead-letter.outcomes")),
    reason: await seal.openText(entry.reason, at("dead-letter.reason")),
  };
}
