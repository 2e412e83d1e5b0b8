import { createToolOutcome, type JsonValue, type ToolOutcome, toJsonSafe } from "@needlework/core";
import type { JournaledOutcome } from "./run-journal.js";
import { ARTIFACT_PAGE_FLAG, ARTIFACT_STORED_FLAG } from "./artifact-store.js";

/** True for an outcome whose data came from an artifact: a stored result's preview, or a page of one. */
function refersToArtifact(outcome: ToolOutcome): boolean {
  if (outcome.artifact !== undefined) return true;
  const flags = outcome.metadata.flags;
  return Array.isArray(flags) && (flags.includes(ARTIFACT_PAGE_FLAG) || flags.includes(ARTIFACT_STORED_FLAG));
}

/**
 * An outcome as the journal keeps it: JSON-safe, with the text the model read.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function journaledOutcome(outcome: ToolOutcome, formatted: string, callId: string): JournaledOutcome {
  const { status, retriable, errorCode, message, suggestion, failures, data, artifact, metadata } = outcome;
  return {
    callId,
    outcome: {
      status,
      retriable,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message }),
      ...(suggestion === undefined ? {} : { suggestion }),
      ...(failures === undefined ? {} : { failures }),
      ...(data === undefined ? {} : { data: toJsonSafe(data) }),
      ...(artifact === undefined ? {} : { artifact }),
      metadata: toJsonSafe(metadata) as { [key: string]: JsonValue },
    },
    // An outcome of an artifact (its preview, or a page read from it) keeps its data, not the text
    // as well: the text is made again from the data, and a call's record stays small.
    formatted: refersToArtifact(outcome) ? "" : formatted,
  };
}

/**
 * The outcome a journal recorded, as the loop reads it again (its metadata a copy of its own).
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function rebuild(recorded: JournaledOutcome): ToolOutcome {
  const { metadata, ...rest } = recorded.outcome;
  return createToolOutcome({ ...rest, metadata: structuredClone(metadata) });
}
