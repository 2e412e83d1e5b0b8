// The scripted model, the same for every framework: it reads each tool result through that
// framework's own channel (a text and the native error marker, as the adapter found them in the
// framework's prompt) and one of three readers:
// - careful: the marker and the whole text (failure words or fields anywhere);
// - hurried: the marker and the first 200 characters;
// - flag: the marker only (needlework: the envelope's `status`; the OpenAI Agents SDK: its fixed
//   error text).
// The readers use no needlework vocabulary (no `retriable`, no needlework status names): failure
// words, `ok`/`success: false`, JSend's `status: "error"`/`"fail"` and HTTP statuses, as any model reads.
// A failure it reads is retried under a new call id when it looks retriable (at most two retries a
// write), reported when not; when it reads no failure it says the work is done.
import type { IntendedWrite } from "./world.js";

/** How much of a tool result the model takes in. */
export type Reader = "careful" | "hurried" | "flag";
/** The three readers, in the order of the summary line. */
export const READERS: readonly Reader[] = ["careful", "hurried", "flag"];

/** A tool result as the framework hands it to the model. */
export interface SeenResult {
  /** The text the model reads (for an error, what the framework wrote in its place). */
  readonly text: string;
  /** The framework's native error marker is set (needlework: the envelope's status is not `ok`). */
  readonly flagged: boolean;
}

/** The conversation as the model sees it: its own calls in order, and each call's result. */
export interface SeenConversation {
  readonly calls: readonly { readonly id: string; readonly contactId: string }[];
  readonly results: ReadonlyMap<string, SeenResult>;
  /** Assistant turns so far. */
  readonly turns: number;
}

/** What the model answers: tool calls, or its final text. */
export type ModelTurn =
  | { readonly kind: "calls"; readonly calls: readonly { readonly id: string; readonly write: IntendedWrite }[] }
  | { readonly kind: "text"; readonly text: string; readonly done: boolean };

/** The final text that claims the work is done. */
export const DONE = "Sync complete: every contact was updated and its note posted.";
const MAX_ATTEMPTS = 3;
/** What a hurried reader reads. */
export const HURRIED_CHARS = 200;

// `"error": null`, `"errors": []` and the like are data, not failures.
const EMPTY_FAILURE_FIELD = /"(?:error|errors|failure|failures)"\s*:\s*(?:null|\[\s*\]|""|false|\{\s*\})/gi;
const FAILURE_WORDS =
  /\b(?:error|errors|failed|fails|failure|exception|denied|forbidden|unauthori[sz]ed|timed out|timeout|rate[ -]limit(?:ed)?|too many requests|unavailable|rejected|aborted|hang up)\b/i;
const FAILURE_FIELDS = /"(?:ok|success)"\s*:\s*false|"status"\s*:\s*"(?:error|fail|failed)"/i;
const STATUS_NUMBER = /\b(?:status(?:\s*code)?|statusCode|httpStatusCode|HTTP-Code|HTTP)["'\s:=]*([1-5]\d\d)\b/gi;

function statuses(text: string): number[] {
  return [...text.matchAll(STATUS_NUMBER)].map((m) => Number(m[1]));
}

/** Whether a text reads as a failure: failure words or fields anywhere in it, or an HTTP status of 400 or more. */
export function readsAsFailure(text: string): boolean {
  const t = text.replace(EMPTY_FAILURE_FIELD, "");
  return FAILURE_WORDS.test(t) || FAILURE_FIELDS.test(t) || statuses(t).some((s) => s >= 400);
}

const NOT_RETRIABLE =
  /do not retry|don't retry|do not call it again|forbidden|permission|not permitted|insufficient access|denied|unauthori[sz]ed|invalid|not valid|rejected|not found/i;
const RETRIABLE =
  /try again|retry|timed out|timeout|rate[ -]limit|too many requests|unavailable|temporar|busy|locked|reset|hang up|network|fetch failed|connection/i;

/** Whether a failure looks worth retrying from what the reader read of it. */
export function looksRetriable(text: string): boolean {
  if (NOT_RETRIABLE.test(text)) return false;
  const codes = statuses(text).filter((s) => s >= 400);
  if (codes.some((s) => s < 500 && s !== 408 && s !== 429)) return false;
  return RETRIABLE.test(text) || codes.length > 0;
}

/** A reader's verdict on one result. */
export function read(reader: Reader, result: SeenResult): { failed: boolean; retriable: boolean } {
  // The flag alone cannot tell a passing failure from a lasting one: the flag-only reader tries again
  // (within the same budget) and then reports.
  if (reader === "flag") return { failed: result.flagged, retriable: result.flagged };
  const text = reader === "hurried" ? result.text.slice(0, HURRIED_CHARS) : result.text;
  const failed = result.flagged || readsAsFailure(text);
  return { failed, retriable: failed && looksRetriable(text) };
}

/**
 * The model's next turn: the first turn calls every write; later turns retry the writes whose last
 * result read as a retriable failure; then the final text, which reports the writes it gave up on
 * or says the work is done.
 *
 * @example
 * ```ts
 * const turn = nextTurn(plan.writes, seen, "careful");
 * ```
 */
export function nextTurn(writes: readonly IntendedWrite[], seen: SeenConversation, reader: Reader): ModelTurn {
  const turn = seen.turns + 1;
  const retries: { id: string; write: IntendedWrite }[] = [];
  const gaveUp: string[] = [];
  writes.forEach((write, i) => {
    const calls = seen.calls.filter((c) => c.contactId === write.contactId);
    const last = calls.at(-1);
    const result = last === undefined ? undefined : seen.results.get(last.id);
    if (last === undefined || result === undefined) {
      if (last === undefined) retries.push({ id: `call_${turn}_${i + 1}`, write });
      return;
    }
    const verdict = read(reader, result);
    if (!verdict.failed) return;
    if (verdict.retriable && calls.length < MAX_ATTEMPTS) retries.push({ id: `call_${turn}_${i + 1}`, write });
    else gaveUp.push(write.contactId);
  });
  if (retries.length > 0) return { kind: "calls", calls: retries };
  if (gaveUp.length === 0) return { kind: "text", text: DONE, done: true };
  return {
    kind: "text",
    done: false,
    text: `The sync is not complete: ${gaveUp.length} of ${writes.length} contacts failed (${gaveUp.join(", ")}).`,
  };
}

/** The arguments the model sends for a write. */
export function callArguments(write: IntendedWrite): Record<string, string> {
  return { contactId: write.contactId, email: write.email, note: write.note };
}
