import { homedir } from "node:os";
import { join } from "node:path";
import { InMemoryResumedCheckpointStore } from "@needlework/durable";

export {
  FileResumedCheckpointStore,
  InMemoryResumedCheckpointStore,
  type ResumedCheckpointStore,
} from "@needlework/durable";

/** The process-wide default without a `checkpointSecret`. @internal */
export const defaultResumedCheckpoints = new InMemoryResumedCheckpointStore();

/**
 * Where agents with a `checkpointSecret` and no `resumedCheckpoints` record resumed checkpoints:
 * `$NEEDLEWORK_STATE_DIR/resumed-checkpoints`, else `~/.needlework/resumed-checkpoints`.
 *
 * @example
 * ```ts
 * console.log(defaultResumedCheckpointDirectory()); // /home/app/.needlework/resumed-checkpoints
 * ```
 */
export function defaultResumedCheckpointDirectory(): string {
  const base = process.env["NEEDLEWORK_STATE_DIR"];
  return join(base !== undefined && base !== "" ? base : join(homedir(), ".needlework"), "resumed-checkpoints");
}
