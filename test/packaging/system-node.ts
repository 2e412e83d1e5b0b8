import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** A Node binary found on the machine and the version it reports. */
export interface SystemNode {
  readonly path: string;
  readonly version: string;
  readonly major: number;
}

/**
 * The machine's own Node of the given major: the first `node` on PATH outside any node_modules folder (pnpm
 * puts the repository's Node 24 first there), then the usual install locations. Undefined when none matches.
 *
 * @example
 * const node20 = findSystemNode(20); // { path: "/usr/bin/node", version: "v20.20.2", major: 20 }
 */
export function findSystemNode(major: number): SystemNode | undefined {
  const fromPath = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !dir.split(/[\\/]/).includes("node_modules"))
    .map((dir) => join(dir, "node"));
  const candidates = [...fromPath, "/usr/bin/node", "/usr/local/bin/node", "/opt/homebrew/bin/node"];
  for (const path of new Set(candidates)) {
    try {
      accessSync(path, constants.X_OK);
      const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
      const found = Number(/^v(\d+)\./.exec(version)?.[1]);
      if (found === major) return { path, version, major: found };
    } catch {
      // not there, or not runnable: try the next one
    }
  }
  return undefined;
}
