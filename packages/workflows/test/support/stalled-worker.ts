// Test support: a child process a stalled-worker test stops (SIGSTOP) inside a tool body and
// continues (SIGCONT) after another process finished its run. Lines on its stdout tell the test
// where it is: "tool-started", "enqueued <runId>", "result <json>", "refused <code>".
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A child process running a stalled-worker script, and the lines it printed. */
export interface Worker {
  readonly child: ChildProcess;
  /** Resolves with the first line starting with `prefix` (its rest). */
  line(prefix: string): Promise<string>;
  /** Resolves when the child exited. */
  readonly exited: Promise<number | null>;
  /** What it wrote on stderr (shown when a test fails). */
  stderr(): string;
}

/** Starts `script` (a TypeScript file, run from sources) with `args` and `env`. */
export function startWorker(script: URL, args: readonly string[], env: Record<string, string>): Worker {
  const child = spawn(
    process.execPath,
    ["--conditions=@needlework/source", "--import", "tsx", fileURLToPath(script), ...args],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
  );
  const lines: string[] = [];
  const waiting: { prefix: string; resolve: (rest: string) => void }[] = [];
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  createInterface({ input: child.stdout! }).on("line", (text) => {
    lines.push(text);
    for (const w of waiting.splice(0)) {
      if (text.startsWith(w.prefix)) w.resolve(text.slice(w.prefix.length).trim());
      else waiting.push(w);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => errors,
    line(prefix) {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) return Promise.resolve(seen.slice(prefix.length).trim());
      return new Promise((resolve, reject) => {
        waiting.push({ prefix, resolve });
        void exited.then((code) =>
          reject(new Error(`worker exited (${String(code)}) before printing "${prefix}": ${errors}`)),
        );
      });
    },
  };
}

/** Prints the outcome of `run` on stdout: "result <json>", or "refused <code>" for a RunStoreError. */
export async function report(run: Promise<{ status: string; text: string; runId: string }>): Promise<void> {
  try {
    const { status, text, runId } = await run;
    process.stdout.write(`result ${JSON.stringify({ status, text, runId })}\n`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    process.stdout.write(`refused ${typeof code === "string" ? code : "UNKNOWN"}\n`);
  }
}
