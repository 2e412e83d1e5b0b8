import { execFile } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** What a finished command printed. */
export interface RunOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command and resolves with its output; rejects with the output in the message when it exits non-zero,
 * so a failing test shows what the app printed.
 *
 * @example
 * const { stdout } = await run(process.execPath, ["app.js"], appDir);
 */
export async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunOutput> {
  try {
    const { stdout, stderr } = await execFileAsync(command, [...args], {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    return { stdout, stderr };
  } catch (error) {
    const { stdout = "", stderr = "", message } = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}: ${message}\n${stdout}\n${stderr}`);
  }
}

/**
 * Writes a folder with a package.json (and optionally a tsconfig.json) and copies fixture files into it.
 *
 * @example
 * writeApp(join(root, "esm"), { type: "module" }, { "app.ts": fixture("legacy/app.ts") });
 */
export function writeApp(
  dir: string,
  manifest: Record<string, unknown>,
  files: Record<string, string>,
  tsconfig?: Record<string, unknown>,
): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true, ...manifest }, null, 2)}\n`);
  if (tsconfig) writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  for (const [name, source] of Object.entries(files)) cpSync(source, join(dir, name));
}
