// Appending a line to a file durably: all of it or none (a short write continued, a failed one cut
// back), then synced; the directory synced when the file is new.
import { open } from "node:fs/promises";

/**
 * The part of an open file the queue appends through: what `open(path, "a+")` from `node:fs/promises`
 * returns. Declared here, structurally, so the package's public types need no `@types/node`.
 */
export interface AppendHandle {
  write(data: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
  truncate(length: number): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Appends all of `data`: `write` may write less than asked (a short write), so the rest follows.
 * Returns the bytes written so far through `progress`, for the cut-back after a failure.
 */
export async function writeFully(handle: AppendHandle, data: Uint8Array, progress: { done: number }): Promise<void> {
  while (progress.done < data.length) {
    const { bytesWritten } = await handle.write(data, progress.done, data.length - progress.done);
    if (bytesWritten <= 0)
      throw Object.assign(new Error("FileDeadLetterQueue: the disk accepted no bytes"), { code: "ENOSPC" });
    progress.done += bytesWritten;
  }
}

/** Cuts a failed append back to `size` when the file ends with it, then syncs. @internal */
export async function cutBack(handle: AppendHandle, size: number, written: number): Promise<void> {
  try {
    if (written > 0 && (await handle.stat()).size === size + written) await handle.truncate(size);
    await handle.sync();
  } catch {
    // The disk may refuse even this; the next append's leading newline still closes the line.
  }
}

/** Syncs a directory (its new entries), where the platform can. @internal */
export async function syncDirectory(path: string): Promise<void> {
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
