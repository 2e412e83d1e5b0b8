import type { AgentCheckpoint, CheckpointJournal } from "@needlework/core/events";
import { checkJsonSignature, signJson } from "@needlework/durable/internal";
import { CheckpointError } from "./checkpoint-error.js";
import { type CheckpointFormat1, migrateCheckpointFormat1 } from "./checkpoint-format-1.js";

// The checkpoint's types are core's (`@needlework/core/events`): run results and events carry it.
export type { AgentCheckpoint, CheckpointJournal, PendingApproval } from "@needlework/core/events";

/** @internal */
export type UnsignedCheckpoint = Omit<AgentCheckpoint, "signature">;

/** Signs a checkpoint (HMAC-SHA256 over its canonical JSON, after a JSON round trip). @internal */
export function signCheckpoint(body: UnsignedCheckpoint, key: Uint8Array): AgentCheckpoint {
  return signJson(body, key);
}

const invalid = (why: string): CheckpointError =>
  new CheckpointError(
    "CHECKPOINT_INVALID",
    `This is not a usable agent checkpoint: ${why}. Pass the \`checkpoint\` of an \`awaiting_approval\` result (or its JSON text) unchanged.`,
  );

/**
 * Parses (when given text) and verifies a checkpoint's signature with `key`. Throws
 * {@link CheckpointError} when it is malformed, altered, or signed with another key.
 * @internal
 */
export function verifyCheckpoint(input: AgentCheckpoint | string, key: Uint8Array): AgentCheckpoint {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      throw invalid("the text is not JSON");
    }
  }
  if (typeof value !== "object" || value === null) throw invalid("expected an object");
  const { signature, ...body } = value as Record<string, unknown>;
  const verdict = checkJsonSignature(body, signature, key);
  if (verdict === "unsigned") throw invalid("it has no signature");
  if (verdict === "unserializable") throw invalid("it cannot be serialized");
  if (verdict === "mismatch") {
    throw new CheckpointError(
      "CHECKPOINT_SIGNATURE_MISMATCH",
      "The checkpoint's signature does not match: it was altered, or signed by an agent with another key. Resume it on an agent created with the same `checkpointSecret` (without one, only the agent instance that paused the run can resume it).",
    );
  }
  // Format 1 (a state snapshot) is read as the journal it stands for: its signature was checked above.
  const checkpoint =
    (value as { version?: unknown }).version === 1 ? migrated(value as CheckpointFormat1) : (value as AgentCheckpoint);
  const version = (checkpoint as { version?: unknown }).version;
  if (typeof version === "number" && version > 2) {
    throw new CheckpointError(
      "CHECKPOINT_VERSION_UNSUPPORTED",
      `This checkpoint is of format ${version}, written by a later release: this one reads formats 1 and 2. Resume it with the release that paused it (or a later one).`,
    );
  }
  const journal = checkpoint.journal as Partial<CheckpointJournal> | null | undefined;
  if (
    checkpoint.version !== 2 ||
    typeof checkpoint.id !== "string" ||
    typeof checkpoint.runId !== "string" ||
    !Array.isArray(checkpoint.pending) ||
    typeof journal !== "object" ||
    journal === null ||
    journal.runId !== checkpoint.runId ||
    typeof journal.input !== "string" ||
    typeof journal.instructions !== "string" ||
    !Array.isArray(journal.turns) ||
    !Array.isArray(journal.calls)
  ) {
    throw invalid("its format is not version 2");
  }
  return checkpoint;
}

/** A signed format-1 checkpoint as format 2; one whose state is not a format-1 state is not usable. */
function migrated(checkpoint: CheckpointFormat1): AgentCheckpoint {
  const state = checkpoint.state as unknown;
  if (typeof state !== "object" || state === null || !Array.isArray((state as { messages?: unknown }).messages))
    throw invalid("its format-1 state has no messages");
  // Its pending calls are format 2's `PendingApproval`s (format 2 kept them as they were).
  return migrateCheckpointFormat1(checkpoint) as AgentCheckpoint;
}

/**
 * Checks that a verified checkpoint belongs to `agent` and is not older than `maxAgeMs` at `now`.
 * Throws {@link CheckpointError} (`CHECKPOINT_WRONG_AGENT`, `CHECKPOINT_EXPIRED`) otherwise.
 * @internal
 */
export function checkCheckpointScope(checkpoint: AgentCheckpoint, agent: string, now: number, maxAgeMs: number): void {
  if (checkpoint.agent !== agent) {
    throw new CheckpointError(
      "CHECKPOINT_WRONG_AGENT",
      `The checkpoint was paused by agent ${JSON.stringify(checkpoint.agent)}, not ${JSON.stringify(agent)}. Resume it on the agent that paused it.`,
    );
  }
  const created = Date.parse(checkpoint.createdAt);
  if (!Number.isFinite(created)) throw invalid("its createdAt is not a date");
  if (now - created > maxAgeMs) {
    throw new CheckpointError(
      "CHECKPOINT_EXPIRED",
      `The checkpoint was created at ${checkpoint.createdAt}, more than checkpointMaxAgeMs (${maxAgeMs} ms) ago. Start a new run instead.`,
    );
  }
}
