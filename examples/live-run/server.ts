import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { toServerSentEvents } from "@needlework/workflows";
import { createLiveRun, HUMAN_PACE, type LivePace } from "./live-run-agent.js";

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
  "/timeline.js": { file: "timeline.js", type: "text/javascript; charset=utf-8" },
  "/timeline.css": { file: "timeline.css", type: "text/css; charset=utf-8" },
};

/** The timeline's renderer and styles, which the run inspector draws stored runs with: one renderer for both pages. */
const SHARED = new Set(["timeline.js", "timeline.css"]);
const inspectorPackage = createRequire(import.meta.url).resolve("@needlework/inspector/package.json");

/** The page's folder: beside this file in the sources, or from the bundle in examples/dist. */
async function readPage(file: string): Promise<Buffer> {
  if (SHARED.has(file)) return readFile(join(dirname(inspectorPackage), "public", file));
  try {
    return await readFile(fileURLToPath(new URL(`./public/${file}`, import.meta.url)));
  } catch {
    return readFile(fileURLToPath(new URL(`../live-run/public/${file}`, import.meta.url)));
  }
}

/**
 * Starts the live run server: the page at `/`, and a fresh CRM sync run streamed as server-sent
 * events at `/events` (the run is cancelled when the page goes away). `port` 0 picks a free port.
 *
 * @example
 * ```ts
 * const { url, close } = await startLiveRunServer({ port: 0 });
 * console.log(`open ${url}`);
 * await close();
 * ```
 */
export async function startLiveRunServer(
  options: { port?: number; pace?: LivePace } = {},
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const pace = options.pace ?? HUMAN_PACE;
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (path === "/events") {
      const { agent, input } = createLiveRun(pace);
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      // pipeline destroys the body when the browser disconnects, which cancels the stream and the run.
      pipeline(
        Readable.fromWeb(
          toServerSentEvents(agent.stream(input)) as import("node:stream/web").ReadableStream<Uint8Array>,
        ),
        response,
      ).catch(() => undefined);
      return;
    }
    const page = FILES[path];
    if (!page || request.method !== "GET") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    readPage(page.file).then(
      (body) => response.writeHead(200, { "content-type": page.type }).end(body),
      () => response.writeHead(500, { "content-type": "text/plain" }).end("page missing"),
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
