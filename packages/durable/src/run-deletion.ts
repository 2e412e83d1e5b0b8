import type { ArtifactStore } from "./artifact-store.js";

/**
 * What `store.deleteRun(runId)` deleted: whether the journal had the run, and how many artifacts
 * the run had.
 *
 * @example
 * ```ts
 * const deleted: RunDeletion = await store.deleteRun("run_1"); // { run: true, artifacts: 2 }
 * ```
 */
export interface RunDeletion {
  readonly run: boolean;
  readonly artifacts: number;
}

/**
 * Deletes a run from a journal that can delete runs, then its artifacts: retention follows the run.
 * The journal refuses a run a live process holds (`RUN_BUSY`) before any artifact goes; a deletion
 * cut off between the two is finished by deleting again. @internal
 */
export async function deleteRunFrom(
  journal: { deleteRun(runId: string): Promise<boolean> },
  artifacts: ArtifactStore,
  runId: string,
): Promise<RunDeletion> {
  const run = await journal.deleteRun(runId);
  return { run, artifacts: await artifacts.deleteRun(runId) };
}
