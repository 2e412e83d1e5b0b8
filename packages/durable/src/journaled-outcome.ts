import { createToolOutcome, type JsonValue, type ToolOutcome, toJsonSafe } from "@needlework/core";
import type { JournaledOutcome } from "./run-journal.js";
import { ARTIFACT_PAGE_FLAG, ARTIFACT_STORED_FLAG } from "./artifact-store.js";

/** True when `outcome` carries `flag` in its metadata. */
function flagged(outcome: ToolOutcome, flag: string): boolean {
  const flags = outcome.metadata.flags;
  return Array.isArray(flags) && flags.includes(flag);
}

/**
 * True for a page read from an artifact (`read_artifact`): the journal keeps that it was read, not
 * what (a replay reads the page again from the artifact, by the call's own arguments). @internal
 */
export function isArtifactPageRecord(recorded: JournaledOutcome): boolean {
  const flags = recorded.outcome.metadata["flags"];
  return (
    recorded.outcome.status === "ok" &&
    recorded.outcome.data === undefined &&
    Array.isArray(flags) &&
    flags.includes(ARTIFACT_PAGE_FLAG)
  );
}

/**
 * An outcome as the journal keeps it: JSON-safe, with the text the model read.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function journaledOutcome(
  outcome: ToolOutcome,
  formatted: string,
  callId: string,
  idempotencyKey: string,
): JournaledOutcome {
  const { status, retriable, errorCode, message, suggestion, failures, artifact, metadata } = outcome;
  // References, never the bytes: a page read from an artifact keeps no data (a replay reads it
  // again), a stored result keeps its preview and reference, and neither keeps its text as well
  // (the text is made again from them): each call's record stays small.
  const page = status === "ok" && flagged(outcome, ARTIFACT_PAGE_FLAG);
  const data = page ? undefined : outcome.data;
  const refers = page || artifact !== undefined || flagged(outcome, ARTIFACT_STORED_FLAG);
  return {
    callId,
    idempotencyKey,
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
    formatted: refers ? "" : formatted,
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
