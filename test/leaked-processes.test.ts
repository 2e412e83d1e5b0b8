// Issue 53: the suite fails when a process it started outlives it. The global teardown
// (test/support/leaked-processes.ts) run here on its own: a process left running fails it, named, and
// is killed; one ended (its whole process group, launcher and child) passes.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { endProcessGroup, liveGroupMembers, spawnInGroup } from "./support/process-group.js";
import setup, { RUN_MARK } from "./support/leaked-processes.js";

const before = process.env[RUN_MARK];
afterEach(() => {
  if (before === undefined) delete process.env[RUN_MARK];
  else process.env[RUN_MARK] = before;
});

/** Alive and not a zombie (an orphan's new parent may never reap it). */
const alive = (pid: number) => liveGroupMembers(groupOf(pid) ?? -1).includes(pid);
const groupOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
};

describe("the suite's check for processes left running", () => {
  it("fails when a process a test started is still alive, names it, and kills it", async () => {
    const teardown = setup();
    // Started through a shell and left behind: the shell's child is orphaned when the shell ends.
    const shell = spawn("sh", ["-c", "sleep 300 & echo $!"], { stdio: ["ignore", "pipe", "ignore"] });
    const orphan = Number(
      await new Promise<string>((resolve) => shell.stdout.once("data", (chunk: Buffer) => resolve(String(chunk)))),
    );
    await new Promise((resolve) => shell.once("exit", resolve));
    expect(alive(orphan)).toBe(true);
    const error = await teardown().catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/left 1 process\(es\) it started running/);
    expect((error as Error).message).toContain(`${orphan} sleep 300`);
    await expect.poll(() => alive(orphan)).toBe(false);
  });

  it("passes once a launcher and the program under it are ended together (their process group)", async () => {
    const teardown = setup();
    // A launcher as node_modules/.bin makes them: a shell that runs the program as its child (no exec).
    const launcher = spawnInGroup("sh", ["-c", "sleep 300; exit 0"], { stdio: "ignore" });
    await expect.poll(() => liveGroupMembers(launcher.pid!).length).toBe(2);
    await endProcessGroup(launcher);
    expect(liveGroupMembers(launcher.pid!)).toEqual([]);
    await expect(teardown()).resolves.toBeUndefined();
  });

  it("a signal to the launcher alone leaves the program under it running (what the suite now catches)", async () => {
    const teardown = setup();
    const launcher = spawnInGroup("sh", ["-c", "sleep 300; exit 0"], { stdio: "ignore" });
    await expect.poll(() => liveGroupMembers(launcher.pid!).length).toBe(2);
    launcher.kill("SIGTERM");
    await new Promise((resolve) => launcher.once("exit", resolve));
    const left = liveGroupMembers(launcher.pid!);
    expect(left).toHaveLength(1);
    await expect(teardown()).rejects.toThrow(/sleep 300/);
    await expect.poll(() => liveGroupMembers(launcher.pid!)).toEqual([]);
  });
});
