import { describe, expect, it } from "vitest";
import { type ArtifactStore, artifactId } from "../artifact-store.js";
import { runIdFor } from "./fixtures.js";

/**
 * Opens a fresh, empty artifact store for one test. `move`, when the store can do it, moves an
 * artifact's stored row or file to another run the way someone with write access to the storage
 * would (the id kept): with a codec, the moved artifact must not open in that run.
 *
 * @example
 * ```ts
 * const open: OpenArtifactStore = async () => ({ store: new InMemoryArtifactStore() });
 * ```
 */
export type OpenArtifactStore = () => Promise<{
  readonly store: ArtifactStore;
  readonly move?: (id: string, fromRun: string, toRun: string) => Promise<void>;
}>;

const ROWS = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `row ${i} — ünïcødé 🧵`, total: i * 1.5 }));

/**
 * The rules every `ArtifactStore` keeps (an S3-style store of yours included): ids are the sha256
 * of the content; content comes back byte for byte; storing it again keeps one copy; an artifact is
 * read only from its own run; `deleteRun` deletes all of a run's and nothing of another's; a
 * malformed id finds nothing; with `move`, a sealed artifact moved to another run does not open.
 *
 * @example
 * ```ts
 * import { artifactStoreContract } from "@needlework/durable/testing";
 * artifactStoreContract("S3ArtifactStore", async () => ({ store: new S3ArtifactStore({ bucket }) }));
 * ```
 */
export function artifactStoreContract(name: string, open: OpenArtifactStore): void {
  describe(`${name} (artifact store contract)`, () => {
    it("stores content under its sha256 and gives it back byte for byte, with its facts", async () => {
      const { store } = await open();
      const runId = runIdFor("artifact");
      const content = JSON.stringify(ROWS);
      const schema = { type: "array", items: { type: "object" } };
      const info = await store.put({ runId, content, items: ROWS.length, schema });
      expect(info).toMatchObject({
        id: artifactId(content),
        runId,
        bytes: Buffer.byteLength(content, "utf8"),
        items: ROWS.length,
        schema,
        mediaType: "application/json",
      });
      expect(Number.isNaN(Date.parse(info.createdAt))).toBe(false);
      const stored = await store.get(runId, info.id);
      expect(stored?.content).toBe(content);
      expect(stored).toMatchObject({ id: info.id, bytes: info.bytes, items: ROWS.length, schema });
    });

    it("keeps one copy of the same content in a run, and lists the run's artifacts without content", async () => {
      const { store } = await open();
      const runId = runIdFor("artifact");
      const first = await store.put({ runId, content: "[1,2,3]", items: 3, schema: { type: "array" } });
      const again = await store.put({ runId, content: "[1,2,3]", items: 3, schema: { type: "array" } });
      const other = await store.put({ runId, content: '"text"', items: 1, schema: { type: "string" } });
      expect(again.id).toBe(first.id);
      expect(first).not.toHaveProperty("provenance");
      const untrusted = await store.put({ runId, content: '"mail"', items: 1, schema: null, provenance: "untrusted" });
      expect((await store.get(runId, untrusted.id))?.provenance).toBe("untrusted");
      const listed = await store.list(runId);
      expect(listed.map((a) => a.id).sort()).toEqual([first.id, other.id, untrusted.id].sort());
      for (const info of listed) expect(info).not.toHaveProperty("content");
    });

    it("reads an artifact only from its own run", async () => {
      const { store } = await open();
      const mine = runIdFor("mine");
      const theirs = runIdFor("theirs");
      const { id } = await store.put({ runId: mine, content: '{"secret":1}', items: 1, schema: { type: "object" } });
      expect(await store.get(theirs, id)).toBeUndefined();
      expect(await store.list(theirs)).toEqual([]);
      expect(await store.get(mine, "not-an-artifact-id")).toBeUndefined();
      expect(await store.get(mine, "0".repeat(64))).toBeUndefined();
    });

    it("deletes a run's artifacts with the run, and no other run's", async () => {
      const { store } = await open();
      const gone = runIdFor("gone");
      const kept = runIdFor("kept");
      const a = await store.put({ runId: gone, content: "[1]", items: 1, schema: null });
      await store.put({ runId: gone, content: "[2]", items: 1, schema: null });
      const b = await store.put({ runId: kept, content: "[1]", items: 1, schema: null });
      expect(await store.deleteRun(gone)).toBe(2);
      expect(await store.get(gone, a.id)).toBeUndefined();
      expect(await store.list(gone)).toEqual([]);
      expect((await store.get(kept, b.id))?.content).toBe("[1]");
      expect(await store.deleteRun(gone)).toBe(0);
    });

    it("refuses a sealed artifact moved to another run (when the store can be made to move one)", async () => {
      const { store, move } = await open();
      if (move === undefined) return;
      const from = runIdFor("from");
      const to = runIdFor("to");
      const { id } = await store.put({ runId: from, content: '{"card":"[REDACTED]"}', items: 1, schema: null });
      await move(id, from, to);
      const read = store.get(to, id).then(
        (artifact) => artifact?.content,
        (error: unknown) => (error as { code?: string }).code,
      );
      expect(await read).not.toBe('{"card":"[REDACTED]"}');
    });
  });
}
