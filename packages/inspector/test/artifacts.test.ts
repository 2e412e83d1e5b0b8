// The inspector's artifact routes: a run's artifacts (size, items), one with its first page, a
// download; behind the token like every API route, and another run's artifact is not found.
import { randomBytes } from "node:crypto";
import { InMemoryRunStore } from "@needlework/durable";
import { afterAll, describe, expect, it } from "vitest";
import { type Inspector, startInspector } from "../src/index.js";

const opened: Inspector[] = [];
afterAll(async () => {
  for (const inspector of opened) await inspector.close();
});

const rows = Array.from({ length: 1_000 }, (_, id) => ({ id, name: `row ${id}` }));

describe("the inspector shows a run's artifacts", () => {
  it("lists them with size and items, shows a first page, downloads the whole, behind the token", async () => {
    const store = new InMemoryRunStore();
    const content = JSON.stringify(rows);
    const info = await store.artifacts.put({ runId: "run_1", content, items: rows.length, schema: { type: "array" } });
    const token = randomBytes(24).toString("base64url");
    const inspector = await startInspector({ store, port: 0, token });
    opened.push(inspector);
    const base = new URL(inspector.url);
    base.hash = "";
    const get = (path: string, auth = true) =>
      fetch(new URL(path, base), { headers: auth ? { authorization: `Bearer ${token}` } : {} });

    expect((await get("/api/runs/run_1/artifacts", false)).status).toBe(401);
    const listed = (await (await get("/api/runs/run_1/artifacts")).json()) as {
      artifacts: { id: string; bytes: number; items: number }[];
    };
    expect(listed.artifacts).toEqual([expect.objectContaining({ id: info.id, bytes: content.length, items: 1_000 })]);

    const one = (await (await get(`/api/runs/run_1/artifacts/${info.id}`)).json()) as {
      artifact: { bytes: number };
      firstPage: { items: unknown[]; offset: number; total: number };
    };
    expect(one.artifact.bytes).toBe(content.length);
    expect(one.firstPage).toEqual({ items: rows.slice(0, 20), offset: 0, total: 1_000 });
    expect(one).not.toHaveProperty("artifact.content");

    const download = await get(`/api/runs/run_1/artifacts/${info.id}/download`);
    expect(download.headers.get("content-disposition")).toContain("attachment");
    expect(await download.text()).toBe(content);
    expect((await get(`/api/runs/run_1/artifacts/${info.id}/download`, false)).status).toBe(401);

    expect((await get(`/api/runs/run_2/artifacts/${info.id}`)).status).toBe(404);
    expect((await get("/api/runs/run_1/artifacts/not-an-id")).status).toBe(400);
  });

  it("a binary artifact (an MCP image): its media type and size, and a download of the bytes themselves", async () => {
    const store = new InMemoryRunStore();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), randomBytes(600)]);
    const info = await store.artifacts.put({
      runId: "run_1",
      content: png.toString("base64"),
      items: 1,
      schema: { type: "string", contentEncoding: "base64", contentMediaType: "image/png" },
      mediaType: "image/png;base64",
    });
    const token = randomBytes(24).toString("base64url");
    const inspector = await startInspector({ store, port: 0, token });
    opened.push(inspector);
    const base = new URL(inspector.url);
    base.hash = "";
    const get = (path: string) => fetch(new URL(path, base), { headers: { authorization: `Bearer ${token}` } });

    const one = (await (await get(`/api/runs/run_1/artifacts/${info.id}`)).json()) as { firstPage: unknown };
    expect(one.firstPage).toEqual({ binary: { mediaType: "image/png", bytes: png.length } });
    const download = await get(`/api/runs/run_1/artifacts/${info.id}/download`);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toContain("attachment");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
  });
});
