// `pnpm check:packages`: the public surface of every package's built declarations (nothing `@internal`, no
// `Resolved*Options`), then publint and @arethetypeswrong/cli on its tarball, as a user would get it.
// Run after `pnpm build`, on Node 24 (node strips the types of this file). `--surface` also lists every export.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packPackages, repoRoot } from "./pack-packages.ts";
import { auditEntry, publicEntries } from "./public-surface.ts";

/**
 * Entry points whose node10 resolution we accept as failing: none. Every subpath is also mapped by the
 * package's `typesVersions`, so `moduleResolution: "node"` (node10) finds its types too.
 */
const node10Subpaths: Record<string, readonly string[]> = {};

const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);
const listSurface = process.argv.includes("--surface");
let failed = false;

// The surface first: it needs only dist/, and a leak is the likelier failure after an edit.
for (const entry of readdirSync(join(repoRoot, "packages"), { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const directory = join(repoRoot, "packages", entry.name);
  const { name } = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { name: string };
  for (const { subpath, dts } of publicEntries(directory)) {
    const label = `${name}${subpath === "." ? "" : subpath.slice(1)}`;
    const { names, values, problems } = auditEntry(dts);
    if (problems.length > 0) {
      failed = true;
      const fix = "move it to the package's /internal entry, or drop @internal if it is public";
      console.log(`FAIL surface ${label}: ${problems.join("; ")} (${fix})`);
    } else {
      console.log(
        `ok   surface ${label}: ${names.length} exports (${values} values, ${names.length - values} types only)`,
      );
    }
    if (listSurface) for (const exported of names) console.log(`       ${exported}`);
  }
}

const destination = mkdtempSync(join(tmpdir(), "needlework-check-"));
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
