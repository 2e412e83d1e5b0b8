import { binaryBaseType } from "@needlework/core/internal";
import type { ArtifactStore, StoredArtifact } from "@needlework/durable";
import { isArtifactId } from "@needlework/durable";
import type { Context, Hono } from "hono";

/** The first page the inspector shows of an artifact: this many items (or characters of text). */
const FIRST_ITEMS = 20;
const FIRST_CHARACTERS = 4_000;

/** The run id of `/api/runs/<id>/artifacts...`, or `undefined` when it is malformed. */
function runIdOf(c: Context): string | undefined {
  const raw = /^\/api\/runs\/([^/]+)\/artifacts/.exec(c.req.path)?.[1] ?? "";
  try {
    const id = decodeURIComponent(raw);
    return id === "" || id.length > 500 || /[\u0000-\u001f\u007f]/.test(id) ? undefined : id;
  } catch {
    return undefined;
  }
}

/** An artifact's first page: the first items of a list or members of an object, or the start of text. */
function firstPage(artifact: StoredArtifact): unknown {
  const binary = binaryBaseType(artifact.mediaType);
  // Binary content (an MCP image, audio, a blob): what it is, and the download holds the bytes.
  if (binary !== undefined)
    return { binary: { mediaType: binary, bytes: Buffer.byteLength(artifact.content, "base64") } };
  let value: unknown;
  try {
    value = JSON.parse(artifact.content);
  } catch {
    return { text: artifact.content.slice(0, FIRST_CHARACTERS), offset: 0, total: artifact.content.length };
  }
  if (Array.isArray(value)) return { items: value.slice(0, FIRST_ITEMS), offset: 0, total: value.length };
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    const items = Object.fromEntries(keys.slice(0, FIRST_ITEMS).map((k) => [k, (value as Record<string, unknown>)[k]]));
    return { items, offset: 0, total: keys.length };
  }
  if (typeof value === "string") return { text: value.slice(0, FIRST_CHARACTERS), offset: 0, total: value.length };
  return { value };
}

/** What a store error may tell the operator: its code, never its message. */
function unreadable(c: Context, error: unknown) {
  const code = (error as { code?: unknown } | null)?.code;
  const safe = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "STORE_FAILED";
  return c.json(
    {
      error: "The artifact cannot be read: the store failed, or it is sealed with another key or was moved.",
      code: safe,
    },
    safe === "STORE_UNAVAILABLE" ? 503 : 409,
  );
}

/**
 * The inspector's artifact routes, behind its token like every `/api/*` route: a run's artifacts
 * (size, items, schema), one artifact with its first page, and its whole content as a download.
 * `artifacts` is the store's own (`store.artifacts`); without one the list is empty.
 * @internal
 */
export function artifactRoutes(app: Hono, artifacts: ArtifactStore | undefined): void {
  app.get("/api/runs/:id/artifacts", async (c) => {
    const runId = runIdOf(c);
    if (runId === undefined) return c.json({ error: "Malformed id in the address." }, 400);
    if (artifacts === undefined) return c.json({ artifacts: [], available: false });
    try {
      return c.json({ artifacts: await artifacts.list(runId), available: true });
    } catch (error) {
      return unreadable(c, error);
    }
  });

  const read = async (c: Context): Promise<StoredArtifact | Response> => {
    const runId = runIdOf(c);
    const id = c.req.param("artifact") ?? "";
    if (runId === undefined || !isArtifactId(id)) return c.json({ error: "Malformed id in the address." }, 400);
    try {
      const artifact = await artifacts?.get(runId, id);
      return artifact ?? c.json({ error: "No artifact with this id in this run." }, 404);
    } catch (error) {
      return unreadable(c, error);
    }
  };

  app.get("/api/runs/:id/artifacts/:artifact", async (c) => {
    const artifact = await read(c);
    if (artifact instanceof Response) return artifact;
    const { content: _content, ...info } = artifact;
    return c.json({ artifact: info, firstPage: firstPage(artifact) });
  });

  app.get("/api/runs/:id/artifacts/:artifact/download", async (c) => {
    const artifact = await read(c);
    if (artifact instanceof Response) return artifact;
    const binary = binaryBaseType(artifact.mediaType);
    if (binary !== undefined) {
      // The bytes as they came (stored as base64), under their own type; never rendered inline.
      c.header("content-disposition", `attachment; filename="artifact-${artifact.id.slice(0, 16)}.bin"`);
      c.header("x-content-type-options", "nosniff");
      return c.body(new Uint8Array(Buffer.from(artifact.content, "base64")), 200, { "content-type": binary });
    }
    c.header("content-disposition", `attachment; filename="artifact-${artifact.id.slice(0, 16)}.json"`);
    return c.body(artifact.content, 200, { "content-type": `${artifact.mediaType}; charset=utf-8` });
  });
}
