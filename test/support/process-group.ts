// Test support: a process a test starts in a process group of its own, and ended with everything under
// it. A command can be a launcher (a `node_modules/.bin` shell script, `/usr/bin/env node`) whose real
// program is its child: a signal to the launcher's pid leaves that child running. Signalling the group
// reaches both, and ending waits until no process of the group is alive (issue 53).
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * Starts `command` as the leader of a new process group (`detached`), so {@link endProcessGroup} can
 * reach every process under it.
 *
 * @example
 * const child = spawnInGroup(bin, ["--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
 * try { ... } finally { await endProcessGroup(child); }
 */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(command, [...args], { ...options, detached: true });
}

/** The live (not zombie) processes of process group `group`, read from /proc. */
export function liveGroupMembers(group: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // ended while listed
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && Number(fields[2]) === group) members.push(Number(name));
  }
  return members;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends a process started by {@link spawnInGroup} and everything it started: SIGTERM to the group,
 * SIGKILL after `graceMs`, and resolves once no process of the group is alive. Rejects when one
 * still is after the kill (a process that survived is a failure, not something to leave behind).
 *
 * @example
 * await endProcessGroup(child);
 */
export async function endProcessGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const group = child.pid;
  if (group === undefined) return; // never started
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-group, name);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ESRCH") throw error; // ESRCH: the group is gone
    }
  };
  signal("SIGTERM");
  for (const [deadline, next] of [
    [Date.now() + graceMs, "SIGKILL"],
    [Date.now() + graceMs + 5_000, undefined],
  ] as const) {
    while (liveGroupMembers(group).length > 0 && Date.now() < deadline) await sleep(20);
    if (liveGroupMembers(group).length === 0) break;
    if (next === undefined)
      throw new Error(`process group ${group} still has ${liveGroupMembers(group).join(", ")} alive after SIGKILL`);
    signal(next);
  }
  if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
}
