import { randomUUID } from "node:crypto";
import { link, mkdir, open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PayloadContext } from "./payload-codec.js";

/**
 * The identity a codec binds a store's sealed values to (`PayloadContext.store`): the text, or a
 * function that reads it (once; the answer is kept). A value sealed in one store does not open in
 * another that shares the key.
 *
 * @example
 * ```ts
 * const journal = codecJournal(inner, codec, { store: "postgres:needlework" });
 * ```
 */
export type StoreIdentity = string | (() => Promise<string>);

/** A store identity read once: the function's answer is kept (a failed read is tried again). */
export function storeIdentityOf(identity: StoreIdentity | undefined): () => Promise<string | undefined> {
  if (identity === undefined || typeof identity === "string") {
    const known = Promise.resolve(identity);
    return () => known;
  }
  let kept: Promise<string> | undefined;
  return () => {
    kept ??= identity().catch((error: unknown) => {
      kept = undefined;
      throw error;
    });
    return kept;
  };
}

/** `context` with the store's identity added (when there is one). */
export async function placedIn(
  context: PayloadContext | undefined,
  store: () => Promise<string | undefined>,
): Promise<PayloadContext | undefined> {
  if (context === undefined) return undefined;
  const id = await store();
  return id === undefined ? context : { ...context, store: id };
}

/**
 * The id of the store in `directory` (its `store-id` file), created once: a random UUID written to a
 * file of its own and linked into place, so two processes starting at once agree on one id and
 * neither reads a half-written file. Copy the file with the directory (a backup keeps it): without
 * it, a new id is made and the values sealed before do not open.
 *
 * @example
 * ```ts
 * const id = await fileStoreId("./data/crm-sync"); // "4f0c…"
 * ```
 */
export async function fileStoreId(directory: string): Promise<string> {
  const path = join(directory, "store-id");
  const existing = await readId(path);
  if (existing !== undefined) return existing;
  await mkdir(directory, { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temporary, "wx");
  try {
    await handle.writeFile(randomUUID());
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, path); // fails with EEXIST when another process made it first
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  const made = await readId(path);
  if (made === undefined) throw new Error(`The store id in ${path} is empty.`);
  return made;
}

async function readId(path: string): Promise<string | undefined> {
  try {
    const text = (await readFile(path, "utf8")).trim();
    return text === "" ? undefined : text;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw error;
  }
}
