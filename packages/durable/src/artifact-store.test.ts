import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rename, rm, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { artifactStoreContract } from "@needlework/durable/testing";
import {
  aesGcmCodec,
  FileArtifactStore,
  FileRunStore,
  InMemoryArtifactStore,
  InMemoryRunStore,
  RunStoreError,
} from "@needlework/durable";

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});
async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "needlework-artifacts-"));
  directories.push(directory);
  return directory;
}

/** Moves an artifact file to another run's folder, as someone with write access to the disk would. */
const moveFile = (directory: string) => async (id: string, from: string, to: string) => {
  await mkdir(join(directory, `run-${to}`), { recursive: true });
  const text = await readFile(join(directory, `run-${from}`, `${id}.artifact`), "utf8");
  const newline = text.indexOf("\n");
  const header = { ...JSON.parse(text.slice(0, newline)), runId: to };
  await writeFile(
    join(directory, `run-${to}`, `${id}.artifact`),
    `${JSON.stringify(header)}\n${text.slice(newline + 1)}`,
  );
};

artifactStoreContract("InMemoryArtifactStore", async () => ({ store: new InMemoryArtifactStore() }));
artifactStoreContract("FileArtifactStore", async () => ({ store: new FileArtifactStore(await freshDirectory()) }));
const key = randomBytes(32);
artifactStoreContract("FileArtifactStore with aesGcmCodec", async () => {
  const directory = await freshDirectory();
  return { store: new FileArtifactStore(directory, { codec: aesGcmCodec(key) }), move: moveFile(directory) };
});

describe("FileArtifactStore sealed", () => {
  it("keeps no clear content or schema on disk, and refuses a file copied to another store", async () => {
    const first = await freshDirectory();
    const second = await freshDirectory();
    const codec = aesGcmCodec(key);
    const store = new FileArtifactStore(first, { codec });
    const info = await store.put({
      runId: "run_1",
      content: '{"customer":"Ada Lovelace"}',
      items: 1,
      schema: { type: "object", properties: { customer: { type: "string" } } },
    });
    const text = await readFile(join(first, "run-run_1", `${info.id}.artifact`), "utf8");
    expect(text).not.toContain("Ada Lovelace");
    expect(text).not.toContain("customer");
    expect((await store.get("run_1", info.id))?.content).toBe('{"customer":"Ada Lovelace"}');
    const other = new FileArtifactStore(second, { codec });
    await other.put({ runId: "run_0", content: "[]", items: 0, schema: null }); // gives the store its id
    await mkdir(join(second, "run-run_1"), { recursive: true });
    await rename(join(first, "run-run_1", `${info.id}.artifact`), join(second, "run-run_1", `${info.id}.artifact`));
    await expect(other.get("run_1", info.id)).rejects.toMatchObject({ code: "PAYLOAD_UNREADABLE" });
  });

  it("refuses an artifact stored in clear where a sealed one belongs", async () => {
    const directory = await freshDirectory();
    const info = await new FileArtifactStore(directory).put({ runId: "run_1", content: "[1]", items: 1, schema: null });
    const sealed = new FileArtifactStore(directory, { codec: aesGcmCodec(key) });
    const error = await sealed.get("run_1", info.id).catch((e: unknown) => e);
    expect(RunStoreError.isInstance(error) && error.code).toBe("PAYLOAD_UNSEALED");
  });
});

describe("FileArtifactStore keeps every run inside its directory", () => {
  it("a run id of dots names a folder inside the store, and deleting it deletes nothing outside", async () => {
    const parent = await freshDirectory();
    const store = new FileArtifactStore(join(parent, "artifacts"));
    await writeFile(join(parent, "keep.txt"), "kept");
    const { id } = await store.put({ runId: "..", content: "[1]", items: 1, schema: null });
    expect((await store.get("..", id))?.content).toBe("[1]");
    expect(await store.deleteRun("..")).toBe(1);
    expect(await readFile(join(parent, "keep.txt"), "utf8")).toBe("kept");
  });
});

describe("deleting a run deletes its artifacts", () => {
  it("InMemoryRunStore and FileRunStore: journal and artifacts go; a live run is refused", async () => {
    for (const store of [new InMemoryRunStore(), new FileRunStore(await freshDirectory())]) {
      const start = { runId: "run_1", agent: "a", instructions: "i", input: "x", startedAt: new Date().toISOString() };
      await store.journal.runStarted(start, "owner");
      const { id } = await store.artifacts.put({ runId: "run_1", content: "[1,2]", items: 2, schema: null });
      await expect(store.deleteRun("run_1")).rejects.toMatchObject({ code: "RUN_BUSY" });
      await store.journal.runEnded("run_1", { status: "completed", endedAt: start.startedAt, result: null }, "owner");
      expect(await store.deleteRun("run_1")).toEqual({ run: true, artifacts: 1 });
      expect(await store.journal.read("run_1")).toBeUndefined();
      expect(await store.artifacts.get("run_1", id)).toBeUndefined();
      expect((await store.journal.list()).runs).toEqual([]);
      expect(await store.deleteRun("run_1")).toEqual({ run: false, artifacts: 0 });
    }
  });
});
