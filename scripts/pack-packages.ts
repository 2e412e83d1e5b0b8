import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file lives in scripts/). */
export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** One packed workspace package: its name and the tarball `pnpm pack` wrote. */
export interface PackedPackage {
  readonly name: string;
  readonly directory: string;
  readonly tarball: string;
}

/**
 * Runs pnpm with the same pnpm that runs this script (`npm_execpath`), else the `pnpm` on PATH.
 *
 * @example
 * runPnpm(["--version"], repoRoot);
 */
export function runPnpm(args: readonly string[], cwd: string): string {
  const execPath = process.env.npm_execpath;
  const [command, prefix] =
    execPath && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ["pnpm", [] as string[]];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Packs every package under packages/ with `pnpm pack` (so `workspace:*` becomes the sibling's version)
 * into `destination`, in one recursive pnpm run. Packages must be built first (`pnpm build`).
 *
 * @example
 * const packed = packPackages("/tmp/tarballs");
 * packed.find((p) => p.name === "@needlework/core")?.tarball;
 */
export function packPackages(destination: string): PackedPackage[] {
  runPnpm(["-r", "--filter", "./packages/**", "pack", "--pack-destination", destination], repoRoot);
  return readdirSync(join(repoRoot, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const directory = join(repoRoot, "packages", entry.name);
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name: string;
        version: string;
        private?: boolean;
      };
      const file = `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`;
      return { name: manifest.name, directory, tarball: join(destination, file), private: manifest.private === true };
    })
    .filter((p) => !p.private)
    .map(({ name, directory, tarball }) => ({ name, directory, tarball }));
}
