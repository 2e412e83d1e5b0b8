// `pnpm check:packages`: publint and @arethetypeswrong/cli on the tarball of every package, as a user would get it.
// Run after `pnpm build`, on Node 24 (node strips the types of this file).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packPackages, repoRoot } from "./pack-packages.ts";

/**
 * Entry points whose node10 resolution we accept as failing. node10 (`moduleResolution: "node"`) ignores
 * `exports`, so no subpath such as `@needlework/workflows/testing` can resolve there without a stub folder at
 * the package root; node10 resolution is deprecated in TypeScript and every supported mode (node16, bundler)
 * resolves it.
 */
const node10Subpaths: Record<string, readonly string[]> = {
  "@needlework/workflows": ["./testing", "./internal"],
  "@needlework/core": ["./internal"],
};

const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);
const destination = mkdtempSync(join(tmpdir(), "needlework-check-"));
let failed = false;
try {
  for (const { name, tarball } of packPackages(destination)) {
    const subpaths = node10Subpaths[name] ?? [];
    const checks: [string, string[]][] = [
      ["publint", ["run", tarball, "--strict"]],
      ["attw", [tarball, "--format", "ascii", "--no-emoji", "--no-color"]],
    ];
    if (subpaths.length > 0) {
      // The subpath is still checked under node16 and bundler; only its node10 row is skipped.
      checks[1] = ["attw", [tarball, "--format", "ascii", "--no-color", "--exclude-entrypoints", ...subpaths]];
      checks.push([
        "attw",
        [tarball, "--format", "ascii", "--no-color", "--profile", "node16", "--entrypoints", ...subpaths],
      ]);
    }
    for (const [tool, args] of checks) {
      try {
        execFileSync(bin(tool), args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
        console.log(
          `ok   ${tool} ${name}${args.includes("--entrypoints") ? ` ${subpaths.join(" ")} (node16, bundler)` : ""}`,
        );
      } catch (error) {
        failed = true;
        const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
        console.log(`FAIL ${tool} ${name}\n${stdout}${stderr}`);
      }
    }
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
