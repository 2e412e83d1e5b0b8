import { execFile } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { outputMismatch } from "./compare-output.js";
import type { DocBlock } from "./extract.js";

const execFileAsync = promisify(execFile);

/** A new project's compiler options, without `experimentalDecorators` or `emitDecoratorMetadata`. */
const TSX_TSCONFIG = {
  compilerOptions: { target: "es2022", module: "nodenext", moduleResolution: "nodenext", strict: true },
};

/**
 * How a doc program is compiled: `swc` as a tsc/swc build with legacy decorators and decorator metadata,
 * `tsx` as esbuild does by default (standard TC39 decorators, no metadata), the way a new user runs a page.
 */
export type DocToolchain = "swc" | "tsx";

/** A doc program that did not run, or printed something other than its page says: where it is and what went wrong. */
export interface ProgramFailure {
  readonly where: string;
  readonly output: string;
}

/**
 * Runs each ```ts run block as its own program, exactly as written, compiled by `toolchain` (see
 * {@link DocToolchain}), in a fresh Node process with no setup file, so an import-order bug or a class that
 * only works with decorator metadata fails here as it would for a user. What it prints on stdout must be
 * what the ```text output block after it says (see {@link outputMismatch}); a block without one fails.
 * Relative imports (./order-tools.js) find the modules of docs/doc-check/modules. `workDir` must lie where
 * module resolution finds the packages (examples/node_modules/...). Packages run from their built dist/.
 *
 * @example
 * const failures = await runDocPrograms(blocks.filter((b) => b.flags.includes("run")), workDir, checkDir, "tsx");
 */
export async function runDocPrograms(
  blocks: readonly DocBlock[],
  workDir: string,
  checkDir: string,
  toolchain: DocToolchain,
  concurrency = 4,
): Promise<ProgramFailure[]> {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  try {
    // The folder lies under node_modules, where Node stops looking for a package scope: say ESM here. For
    // tsx, a tsconfig with no decorator options, so esbuild compiles standard decorators as a new project's
    // `tsc --init` would have it.
    writeFileSync(join(workDir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
    if (toolchain === "tsx")
      writeFileSync(join(workDir, "tsconfig.json"), `${JSON.stringify(TSX_TSCONFIG, null, 2)}\n`);
    const loader = toolchain === "swc" ? join(checkDir, "swc-hooks.mjs") : "tsx";
    for (const file of readdirSync(join(checkDir, "modules")))
      cpSync(join(checkDir, "modules", file), join(workDir, file));
    const programs = blocks.map((block, i) => {
      const file = join(workDir, `${block.file.replace(/[^a-z0-9]+/gi, "_")}_${block.line}_${i}.ts`);
      writeFileSync(file, `${block.code}\n`);
      return { where: `${block.file}:${block.line}`, file, block };
    });
    const failures: ProgramFailure[] = [];
    // Printed output is compared as text: no colour codes. A program's temporary files go to a folder of
    // the run, removed with it.
    const tmp = join(workDir, "tmp");
    mkdirSync(tmp);
    const env = { ...process.env, NO_COLOR: "1", TMPDIR: tmp };
    const command = (file: string) => [process.execPath, "--import", loader, file];
    const queue = [...programs];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        try {
          // One pipe for stdout and stderr (`2>&1`), in the order the program wrote them, as a terminal shows it.
          const { stdout } = await execFileAsync("sh", ["-c", 'exec "$0" "$@" 2>&1', ...command(next.file)], {
            cwd: workDir,
            encoding: "utf8",
            timeout: 60_000,
            env,
          });
          const problem = outputProblem(next.block, stdout);
          if (problem) failures.push({ where: next.where, output: problem });
        } catch (error) {
          const { stdout = "", stderr = "", message } = error as Error & { stdout?: string; stderr?: string };
          failures.push({ where: next.where, output: `${message}\n${stdout}\n${stderr}`.trim() });
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return failures;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** What is wrong with a program's printed output against its page, or undefined. */
function outputProblem(block: DocBlock, stdout: string): string | undefined {
  if (block.output === undefined)
    return [
      "a ```ts run block must be followed by a ```text output block with what it prints (a line may use … for a",
      "variable part; an empty block for a program that prints nothing). Check that what it printed is what the",
      "page's text claims, then add:",
      "```text output",
      stdout.trimEnd(),
      "```",
    ].join("\n");
  const mismatch = outputMismatch(block.output, stdout);
  return mismatch && `its output block (${block.file}:${block.outputLine}) does not match what it printed: ${mismatch}`;
}

/**
 * Blocks that import tsyringe (which needs the Reflect polyfill when it loads) without importing
 * reflect-metadata first: "page:line" for each.
 *
 * @example
 * importOrderProblems(blocks); // ["docs/getting-started.md:75"]
 */
export function importOrderProblems(blocks: readonly DocBlock[]): string[] {
  return blocks
    .filter((block) => {
      // A block that shows the mistake on purpose (docs/eslint/reflect-metadata-first.md).
      if (block.flags.includes("lint-invalid")) return false;
      const imports = [...block.code.matchAll(/^import\s+(?:[^"']*\sfrom\s+)?["']([^"']+)["']/gm)].map((m) => m[1]);
      const tsyringe = imports.indexOf("tsyringe");
      const polyfill = imports.indexOf("reflect-metadata");
      return tsyringe >= 0 && (polyfill < 0 || polyfill > tsyringe);
    })
    .map((block) => `${block.file}:${block.line}`);
}
