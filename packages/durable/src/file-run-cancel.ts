/*
 * A FileRunJournal's cancel requests: one `<runId>.cancel` file beside the run's journal, created
 * exclusively (of two requests at once, the first file made wins; the second reads it back).
 */
import { open, readFile, rm } from "node:fs/promises";
import { checkCancellable, checkCancelRequest, type RunCancelRequest } from "./run-cancel.js";

export type { RunCancelRequest };

const cancelFile = (journalFile: string): string => `${journalFile.slice(0, -".jsonl".length)}.cancel`;

/** Deletes the cancel request of the run whose journal is `journalFile` (with the run). @internal */
export function removeCancelFile(journalFile: string): Promise<void> {
  return rm(cancelFile(journalFile), { force: true });
}

/** The request recorded for the run whose journal is `journalFile`, or `undefined`. @internal */
export async function readCancelFile(journalFile: string): Promise<RunCancelRequest | undefined> {
  let text: string;
  try {
    text = await readFile(cancelFile(journalFile), "utf8");
  } catch {
    return undefined; // none made
  }
  try {
    const request = JSON.parse(text) as Partial<RunCancelRequest>;
    if (typeof request.by === "string" && typeof request.at === "string") return { by: request.by, at: request.at };
  } catch {
    // a torn file (a crash mid-write): read as made by nobody known
  }
  return { by: "unknown", at: new Date(0).toISOString() };
}

/**
 * Records `request` for the run (`readFold`: its journal's lease fold, `undefined` when there is no
 * such run), unless one is recorded already; resolves the request in force. @internal
 */
export async function writeCancelFile(
  journalFile: string,
  runId: string,
  request: RunCancelRequest,
  readFold: () => Promise<{ readonly ended: string | undefined } | undefined>,
): Promise<RunCancelRequest> {
  const asked = checkCancelRequest("FileRunJournal.requestCancel", request);
  const fold = await readFold();
  checkCancellable(runId, fold !== undefined, fold?.ended);
  let handle;
  try {
    handle = await open(cancelFile(journalFile), "wx");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    return (await readCancelFile(journalFile))!;
  }
  try {
    await handle.writeFile(JSON.stringify(asked));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return asked;
}
