// Vitest global setup: a test that starts a process must end it (issue 53: an inspector left serving
// after every run). Before the run, this marks the environment every process the suite starts
// inherits with an id of this run; after the run, any live process that carries the mark, or still
// descends from this process, fails the run, named (and is then killed, so the machine is not left
// with it). Vitest's own workers are not counted.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** The variable that marks the processes of one test run. */
export const RUN_MARK = "NEEDLEWORK_TEST_RUN";

/** One process as /proc shows it. */
export interface ProcessInfo {
  readonly pid: number;
  readonly parent: number;
  readonly command: string;
  /** Whether its environment (as it started) holds `mark`. */
  readonly marked: boolean;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // ended while listed, or not ours to read
  }
}

/** Every live process (zombies left out), with whether it carries `mark` (`NAME=value`). */
export function liveProcesses(mark: string): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") continue;
    const environ = read(`/proc/${name}/environ`) ?? "";
    const command = (read(`/proc/${name}/cmdline`) ?? "").split("\0").join(" ").trim();
    found.push({ pid: Number(name), parent: Number(fields[1]), command, marked: environ.split("\0").includes(mark) });
  }
  return found;
}

/**
 * The processes a run left alive: marked or descending from `self`, except `self` and Vitest's own
 * workers (children of `self` running Vitest's code, and what they alone run).
 */
export function leftAlive(processes: readonly ProcessInfo[], self: number): ProcessInfo[] {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  // Vitest's pool workers run its files; its watchdog names itself (`vitest-watchdog`).
  const isWorker = (p: ProcessInfo) => p.parent === self && /(^vitest\b|[/\\]vitest[/\\])/.test(p.command);
  const descends = (p: ProcessInfo): boolean => {
    for (let at = byPid.get(p.parent), hops = 0; at !== undefined && hops < 64; at = byPid.get(at.parent), hops++)
      if (at.pid === self) return true;
    return false;
  };
  return processes.filter((p) => p.pid !== self && !isWorker(p) && (p.marked || descends(p)));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export default function setup(): () => Promise<void> {
  const mark = `${RUN_MARK}=${randomUUID()}`;
  const [name, value] = mark.split("=") as [string, string];
  process.env[name] = value;
  return async () => {
    // A process ended a moment ago may still be on its way out: give it a few seconds.
    let left = leftAlive(liveProcesses(mark), process.pid);
    for (const deadline = Date.now() + 5_000; left.length > 0 && Date.now() < deadline; ) {
      await sleep(100);
      left = leftAlive(liveProcesses(mark), process.pid);
    }
    if (left.length === 0) return;
    for (const p of left) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    throw new Error(
      `The test suite left ${left.length} process(es) it started running (end each one and wait for its exit; a launcher's child needs its process group ended). They were killed now:\n${left.map((p) => `${p.pid} ${p.command.slice(0, 200)}`).join("\n")}`,
    );
  };
}
