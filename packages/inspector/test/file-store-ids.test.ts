// Issue 46: a run id the file store cannot name (its ids are file names) is a malformed address: the
// inspector answers 400 with a fixed text, as it does on every store, never 500.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunStore, InMemoryRunStore } from "@needlework/workflows";
import { afterAll, describe, expect, it } from "vitest";
import { type Inspector, startInspector } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "nw-inspector-ids-"));
const opened: Inspector[] = [];
afterAll(async () => {
  for (const inspector of opened) await inspector.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("a malformed run id in the inspector's address", () => {
  it.each([
    ["a file store", () => new FileRunStore(directory)],
    ["a memory store", () => new InMemoryRunStore()],
  ])("answers 400 on %s, for every route that names a run", async (_, store) => {
    const inspector = await startInspector({ store: store(), port: 0 });
    opened.push(inspector);
    for (const id of ["..%2Fescape", "a%20b", "run%2Fwith%2Fslashes", "%E2%80%AEbidi"]) {
      const response = await fetch(new URL(`/api/runs/${id}`, inspector.url));
      const body = (await response.json()) as { error?: string; code?: string };
      expect([400, 404], id).toContain(response.status);
      if (response.status === 400) expect(body.error, id).toBe("Malformed id in the address.");
      expect(JSON.stringify(body), id).not.toMatch(/FileRunJournal|safe file name/);
    }
    // On the file store these ids are not file names: 400, not 404 (and never 500).
    if (_ === "a file store") expect((await fetch(new URL("/api/runs/..%2Fescape", inspector.url))).status).toBe(400);
  });
});
