import { createToolOutcome, type JsonValue, type ToolOutcome, toJsonSafe } from "@needlework/core";
import type { JournaledOutcome } from "./run-journal.js";

/**
 * An outcome as the journal keeps it: JSON-safe, with the text the model read.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export function journaledOutcome(outcome: ToolOutcome, formatted: string, callId: string): JournaledOutcome {
  const { status, retriable, errorCode, message, suggestion, failures, data, metadata } = outcome;
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
      metadata: toJsonSafe(metadata) as { [key: string]: JsonValue },
    },
    formatted,
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
