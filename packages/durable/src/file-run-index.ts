import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pageOfRuns, RUNNING, type RunListPage, type RunListQuery, type RunSummary } from "./run-list.js";
import type { JournaledRun } from "./run-journal.js";

/** A run id that is a safe file name in a FileRunJournal directory. */
export const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** The runs index of a FileRunJournal directory: JSON lines, named apart from every `<runId>.jsonl`. */
const INDEX = "runs.index";

/** A line of the runs index: a start (agent, startedAt) or an end (status, endedAt). */
export interface IndexLine {
  readonly runId: string;
  readonly agent?: string;
  readonly startedAt?: string;
  readonly status?: string;
  readonly endedAt?: string;
}

/** Appends one line to the directory's runs index, synced. */
export async function appendIndexLine(directory: string, line: IndexLine): Promise<void> {
  const handle = await open(join(directory, INDEX), "a");
  try {
    await handle.writeFile(`\n${JSON.stringify(line)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readIndex(directory: string): Promise<Map<string, Partial<IndexLine>>> {
  const runs = new Map<string, Partial<IndexLine>>();
  let text = "";
  try {
    text = await readFile(join(directory, INDEX), "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
  }
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    try {
      const line = JSON.parse(raw) as IndexLine;
      if (typeof line.runId === "string") runs.set(line.runId, { ...runs.get(line.runId), ...line });
    } catch {
      // a torn line: that run is read from its journal
    }
  }
  return runs;
}

function summaryOf(run: JournaledRun): RunSummary {
  return {
    runId: run.runId,
    agent: run.agent,
    startedAt: run.startedAt,
    status: run.end?.status ?? RUNNING,
    ...(run.end ? { endedAt: run.end.endedAt } : {}),
  };
}

/**
 * Runs newest first, paged. The directory keeps an index of runs (`runs.index`: JSON lines, one when
 * a run starts and one when it ends, appended and synced), so a page reads one file, not every
 * journal. A run the index does not name (written before the index existed, or cut off between
 * its journal and its index line) is read from its journal with `read`.
 */
export async function listFileRuns(
  directory: string,
  read: (runId: string) => Promise<JournaledRun | undefined>,
  query: RunListQuery | undefined,
): Promise<RunListPage> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return pageOfRuns("FileRunJournal", [], query);
    throw error;
  }
  const indexed = await readIndex(directory);
  const summaries: RunSummary[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const runId = name.slice(0, -".jsonl".length);
    const known = indexed.get(runId);
    if (known?.agent !== undefined && known.startedAt !== undefined)
      summaries.push({
        runId,
        agent: known.agent,
        startedAt: known.startedAt,
        status: known.status ?? RUNNING,
        ...(known.endedAt === undefined ? {} : { endedAt: known.endedAt }),
      });
    else if (RUN_ID.test(runId)) {
      const run = await read(runId);
      if (run) summaries.push(summaryOf(run));
    }
  }
  return pageOfRuns("FileRunJournal", summaries, query);
}
