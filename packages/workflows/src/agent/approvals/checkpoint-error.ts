import { NeedleworkError } from "@needlework/core";

/**
 * Why a checkpoint was refused.
 *
 * @example
 * ```ts
 * const retryable = (code: CheckpointErrorCode) => code === "CHECKPOINT_DECISIONS_INVALID";
 * ```
 */
export type CheckpointErrorCode =
  | "CHECKPOINT_INVALID"
  | "CHECKPOINT_SIGNATURE_MISMATCH"
  | "CHECKPOINT_ALREADY_RESUMED"
  | "CHECKPOINT_DECISIONS_INVALID"
  | "CHECKPOINT_WRONG_AGENT"
  | "CHECKPOINT_EXPIRED"
  | "CHECKPOINT_VERSION_UNSUPPORTED";

/**
 * `agent.resume()` refused a checkpoint: malformed, altered or signed with another key, paused by
 * another agent, older than `checkpointMaxAgeMs`, already resumed, of a format this release does not
 * read (`CHECKPOINT_VERSION_UNSUPPORTED`: one written by a later release), or the decisions do not match
 * its pending calls. No tool ran.
 *
 * @example
 * ```ts
 * try { await agent.resume(checkpoint, decisions); }
 * catch (e) { if (e instanceof CheckpointError && e.code === "CHECKPOINT_ALREADY_RESUMED") return; throw e; }
 * ```
 */
export class CheckpointError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_CheckpointError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(CheckpointError, "name", { value: "CheckpointError" });
  }
  declare readonly code: CheckpointErrorCode;

  constructor(code: CheckpointErrorCode, message: string) {
    super(code, message);
  }
}
