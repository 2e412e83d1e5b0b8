import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { openDeadLetter, sealDeadLetter } from "./codec-dead-letter.js";
import { PayloadSealer } from "./codec-journal.js";
import { ownOption } from "@needlework/core/kit";
import { type AppendHandle, cutBack, syncDirectory, writeFully } from "./file-append.js";
import type { PayloadCodec } from "./payload-codec.js";
import { fileStoreId } from "./store-identity.js";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { toJsonSafe } from "@needlework/core";
import {
  type DeadLetterEntry,
  type DeadLetterFilter,
  deadLetterPage,
  type ManagedDeadLetterQueue,
  matchesDeadLetter,
  type StoredDeadLetter,
  UNREADABLE_LETTER,
  unreadableLetter,
} from "./dead-letter-queue.js";

/** A letter's id in this file: its line number. */
const LETTER_ID = /^[1-9]\d{0,15}$/;

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

/**
 * A dead-letter queue in a JSON-lines file: one entry per line, appended and fsynced before
 * `append` resolves, so entries survive a crash. A line torn by a crash mid-write is skipped by
 * `list()` and reported by `read()`; the next `append` starts on a fresh line, so it never
 * corrupts a following entry. Appends from one instance are serialized.
 *
 * @example
 * ```ts
 * const deadLetters = new FileDeadLetterQueue("./data/crm-sync/dead-letters.jsonl");
 * const { entries, skipped } = await deadLetters.read();
 * if (skipped.length > 0) console.warn("skipped dead-letter lines", skipped);
 * ```
 */
export class FileDeadLetterQueue implements ManagedDeadLetterQueue {
  private tail: Promise<void> = Promise.resolve();
  private readonly seal: PayloadSealer | undefined;

  /** `codec`: each entry's arguments, outcomes and reason are stored encoded (see `PayloadCodec`). */
  constructor(
    readonly path: string,
    options: { readonly codec?: PayloadCodec } = {},
  ) {
    if (typeof path !== "string" || path === "")
      throw new TypeError("FileDeadLetterQueue: pass the path of the JSON-lines file.");
    const codec = ownOption(options, "codec"); // an own property: a polluted prototype supplies none
    // Sealed entries are bound to the store (the id in `store-id` beside the file): a line moved
    // to another store's file does not open, even where the key is shared.
    const store = async (): Promise<string> => `file:${await fileStoreId(dirname(path))}`;
    this.seal = codec === undefined ? undefined : new PayloadSealer(codec, store);
  }

  async append(entry: DeadLetterEntry): Promise<void> {
    const safe = toJsonSafe(entry) as unknown as DeadLetterEntry;
    const line = `${JSON.stringify(this.seal ? await sealDeadLetter(this.seal, safe) : safe)}\n`;
    const write = (): Promise<void> => this.write(line);
    const run = this.tail.then(write, write);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async write(line: string): Promise<void> {
    const directory = dirname(this.path);
    await mkdir(directory, { recursive: true });
    const handle = await this.openForAppend(this.path);
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
      const data = Buffer.from(prefix + line, "utf8");
      const progress = { done: 0 };
      try {
        await writeFully(handle, data, progress);
        await handle.sync();
      } catch (error) {
        // ENOSPC or any failed write: the append rejects (nothing is acknowledged) and the partial
        // line is cut off when the file ends with it (no other process appended meanwhile), so it
        // cannot join the entry acknowledged before; otherwise the next append closes it as one
        // bad line.
        await cutBack(handle, size, progress.done);
        throw error;
      }
    } finally {
      await handle.close();
    }
    if (created) await syncDirectory(directory);
  }

  /** Opens the file for appending (O_APPEND, so concurrent processes never overwrite each other). @internal */
  protected openForAppend(path: string): Promise<AppendHandle> {
    return open(path, "a+");
  }

  /**
   * Letters oldest first, each with its id (its line number in the file) and when it was
   * acknowledged; torn or corrupt lines are left out (see {@link read}). `filter` narrows and pages
   * (`{ acknowledged: false, offset, limit }`); the file is read as a stream, so any size works.
   */
  async list(filter: DeadLetterFilter = {}): Promise<readonly StoredDeadLetter[]> {
    const { offset, limit } = deadLetterPage("FileDeadLetterQueue", filter);
    const letters: StoredDeadLetter[] = [];
    if (limit === 0) return letters;
    const acknowledged = await this.acknowledgements();
    let index = 0;
    for await (const item of this.lines()) {
      if (!("entry" in item)) continue;
      const id = String(item.line);
      const at = acknowledged.get(id);
      const stored: StoredDeadLetter = { ...item.entry, id, ...(at === undefined ? {} : { acknowledgedAt: at }) };
      const letter = item.unreadable ? unreadableLetter(stored) : stored;
      if (!matchesDeadLetter(letter, filter)) continue;
      if (index++ < offset) continue;
      letters.push(letter);
      if (letters.length >= limit) break;
    }
    return letters;
  }

  /**
   * Replays a letter through `handler`, claimed first across processes: the claim is a file created
   * exclusively (`<path>.replaying/<id>`), so of two replays of one letter, from any processes over
   * this file, one runs it and the other gets `false`. When `handler` resolves the letter is
   * acknowledged, when it throws the claim is released and the error rethrown. `false` when the
   * letter does not exist, is acknowledged, is unreadable, or is being replayed. A process that dies
   * mid-replay leaves its claim (as PostgreSQL's does): delete the file to replay the letter again.
   */
  async replay(id: string, handler: (letter: StoredDeadLetter) => Promise<void>): Promise<boolean> {
    if (!LETTER_ID.test(id)) return false;
    const claims = `${this.path}.replaying`;
    await mkdir(claims, { recursive: true });
    const claim = join(claims, id);
    try {
      await (await open(claim, "wx")).close();
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") return false;
      throw error;
    }
    try {
      // Read after the claim: a replay that finished just before (acknowledged, claim released) is seen.
      const letter = (await this.list({ acknowledged: false })).find((l) => l.id === id);
      if (letter === undefined || letter.unreadable) return false;
      await handler(letter);
      await this.acknowledge(id);
      return true;
    } finally {
      await rm(claim, { force: true });
    }
  }

  /**
   * Marks a letter handled: appended (and synced) to `<path>.acks`, since the letters' file is
   * append-only. `false` when there is no such letter or it already was acknowledged.
   */
  acknowledge(id: string): Promise<boolean> {
    const run = this.tail.then(async () => {
      if (!LETTER_ID.test(id) || (await this.acknowledgements()).has(id)) return false;
      let found = false;
      for await (const item of this.rawLines()) if ("entry" in item && String(item.line) === id) found = true;
      if (!found) return false;
      const handle = await open(`${this.path}.acks`, "a");
      try {
        await handle.writeFile(`${JSON.stringify({ id, at: new Date().toISOString() })}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return true;
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Acknowledged ids and when; a torn last line of the acks file is ignored (that acknowledgement never returned). */
  private async acknowledgements(): Promise<Map<string, string>> {
    const acknowledged = new Map<string, string>();
    let text = "";
    try {
      text = await readFile(`${this.path}.acks`, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    }
    for (const line of text.split("\n")) {
      try {
        const { id, at } = JSON.parse(line) as { id?: unknown; at?: unknown };
        if (typeof id === "string" && typeof at === "string" && !acknowledged.has(id)) acknowledged.set(id, at);
      } catch {
        // an empty or torn line
      }
    }
    return acknowledged;
  }

  /** Every entry, oldest first, read as a stream (one line in memory at a time). */
  async *entries(): AsyncGenerator<DeadLetterEntry> {
    for await (const item of this.lines()) if ("entry" in item && !item.unreadable) yield item.entry;
  }

  /** Entries oldest first, and the lines that could not be read (a torn last line after a crash). */
  async read(): Promise<DeadLetterReadResult> {
    const entries: DeadLetterEntry[] = [];
    const skipped: SkippedDeadLetterLine[] = [];
    for await (const item of this.lines()) {
      if (!("entry" in item)) skipped.push(item.skipped);
      else if (item.unreadable) skipped.push({ line: item.line, torn: false, text: UNREADABLE_LETTER });
      else entries.push(item.entry);
    }
    return { entries, skipped };
  }

  private async *rawLines(): AsyncGenerator<
    { entry: DeadLetterEntry; line: number } | { skipped: SkippedDeadLetterLine }
  > {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, "r");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return;
      throw error;
    }
    let endsClean = true;
    let size = 0;
    try {
      size = (await handle.stat()).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        endsClean = last[0] === 0x0a;
      }
    } finally {
      await handle.close();
    }
    if (size === 0) return;
    // Only the bytes present now: a concurrent append after this point is not half-read.
    const reader = createInterface({
      input: createReadStream(this.path, { encoding: "utf8", start: 0, end: size - 1 }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let lineNumber = 0;
    let pending: { raw: string; line: number } | undefined;
    const judge = (
      raw: string,
      line: number,
      last: boolean,
    ): { entry: DeadLetterEntry; line: number } | { skipped: SkippedDeadLetterLine } | undefined => {
      if (raw.trim() === "") return undefined;
      try {
        const value: unknown = JSON.parse(raw);
        if (typeof value === "object" && value !== null && typeof (value as { tool?: unknown }).tool === "string")
          return { entry: value as DeadLetterEntry, line };
      } catch {
        // reported below
      }
      return { skipped: { line, torn: last && !endsClean, text: raw.slice(0, 200) } };
    };
    // One line behind, so the last line is known as last (a torn write has no newline).
    for await (const raw of reader) {
      lineNumber++;
      if (pending) {
        const item = judge(pending.raw, pending.line, false);
        if (item) yield item;
      }
      pending = { raw, line: lineNumber };
    }
    if (pending) {
      const item = judge(pending.raw, pending.line, true);
      if (item) yield item;
    }
  }

  /** Every line, entries decoded with the codec (when there is one). */
  private async *lines(): AsyncGenerator<
    { entry: DeadLetterEntry; line: number; unreadable?: true } | { skipped: SkippedDeadLetterLine }
  > {
    for await (const item of this.rawLines()) {
      if (this.seal === undefined || !("entry" in item)) yield item;
      else {
        // One letter the codec cannot open (another key, a damaged value) never fails the rest.
        const opened = await openDeadLetter(this.seal, item.entry).catch(() => undefined);
        yield opened === undefined ? { ...item, unreadable: true } : { entry: opened, line: item.line };
      }
    }
  }
}
