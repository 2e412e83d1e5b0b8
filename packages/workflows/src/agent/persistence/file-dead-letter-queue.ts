import { mkdir, open, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { toJsonSafe } from "@needlework/core";
import type { DeadLetterEntry, DeadLetterQueue } from "./dead-letter-queue.js";

/**
 * A line of the file that is not an entry.
 *
 * @example
 * ```ts
 * for (const line of (await queue.read()).skipped) if (line.torn) console.warn("torn line", line.line);
 * ```
 */
export interface SkippedDeadLetterLine {
  /** 1-based line number. */
  readonly line: number;
  /** True for an unterminated last line: a write the process did not finish (a crash). */
  readonly torn: boolean;
  /** The start of the line, for the log. */
  readonly text: string;
}

/**
 * What {@link FileDeadLetterQueue.read} found.
 *
 * @example
 * ```ts
 * const { entries, skipped } = await queue.read();
 * ```
 */
export interface DeadLetterReadResult {
  readonly entries: readonly DeadLetterEntry[];
  readonly skipped: readonly SkippedDeadLetterLine[];
}

async function syncDirectory(path: string): Promise<void> {
  try {
    const dir = await open(path, "r");
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the file itself is synced regardless.
  }
}

/**
 * A dead-letter queue in a JSON-lines file: one entry per line, appended and fsynced before
 * `append` resolves, so entries survive a crash. A line torn by a crash mid-write is skipped by
 * `list()` and reported by `read()`; the next `append` starts on a fresh line, so it never
 * corrupts a following entry. Appends from one instance are serialized.
 *
 * @example
 * ```ts
 * const deadLetters = new FileDeadLetterQueue("/var/lib/crm-sync/dead-letters.jsonl");
 * const { entries, skipped } = await deadLetters.read();
 * if (skipped.length > 0) console.warn("skipped dead-letter lines", skipped);
 * ```
 */
export class FileDeadLetterQueue implements DeadLetterQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {
    if (typeof path !== "string" || path === "") throw new TypeError("FileDeadLetterQueue: pass the path of the JSON-lines file.");
  }

  append(entry: DeadLetterEntry): Promise<void> {
    const line = `${JSON.stringify(toJsonSafe(entry))}\n`;
    const write = (): Promise<void> => this.write(line);
    const run = this.tail.then(write, write);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async write(line: string): Promise<void> {
    const directory = dirname(this.path);
    await mkdir(directory, { recursive: true });
    const handle = await open(this.path, "a+");
    let created = false;
    try {
      const { size } = await handle.stat();
      created = size === 0;
      let prefix = "";
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = "\n"; // close a torn line so it stays one bad line
      }
      await handle.write(prefix + line);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (created) await syncDirectory(directory);
  }

  /** Entries oldest first; torn or corrupt lines are left out (see {@link read}). */
  async list(): Promise<readonly DeadLetterEntry[]> {
    return (await this.read()).entries;
  }

  /** Entries oldest first, and the lines that could not be read (a torn last line after a crash). */
  async read(): Promise<DeadLetterReadResult> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return { entries: [], skipped: [] };
      throw error;
    }
    const lines = text.split("\n");
    const entries: DeadLetterEntry[] = [];
    const skipped: SkippedDeadLetterLine[] = [];
    lines.forEach((raw, index) => {
      if (raw.trim() === "") return;
      try {
        const value: unknown = JSON.parse(raw);
        if (typeof value === "object" && value !== null && typeof (value as { tool?: unknown }).tool === "string") {
          entries.push(value as DeadLetterEntry);
          return;
        }
      } catch {
        // reported below
      }
      skipped.push({ line: index + 1, torn: index === lines.length - 1, text: raw.slice(0, 200) });
    });
    return { entries, skipped };
  }
}
