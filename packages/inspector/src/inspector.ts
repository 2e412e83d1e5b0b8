/*
 * startInspector: the options checked, the routes composed over one store, the page's files, and the
 * server listening.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { findRoutes } from "./find-routes.js";
import { guard } from "./guard.js";
import { inspection } from "./inspection.js";
import { type Inspector, type InspectorOptions, inspectorSettings } from "./inspector-options.js";
import { letterRoutes } from "./letter-routes.js";
import { runRoutes } from "./run-routes.js";
import { cancelRoute } from "./cancel-route.js";
import { watchRoutes } from "./watch-routes.js";
import { listenProblem, storeProblem } from "./start-error.js";

export type { Inspector, InspectorOptions } from "./inspector-options.js";

/** The page's files: `public/` of this package, beside `src/` and `dist/`. */
const publicFile = (name: string): string => fileURLToPath(new URL(`../public/${name}`, import.meta.url));

/** The only files served (a fixed list, so no path reaches the disk from a request). */
const STATIC_FILES = ["app.js", "timeline.js", "cancel.js", "timeline.css", "style.css"] as const;

/** Addresses of the page's views, served as the page itself. */
const PAGE_PATHS = ["/", "/runs", "/runs/", "/runs/:id", "/runs/:id/", "/dead-letters", "/dead-letters/", "/health"];

/**
 * Starts the run inspector: a page over a store's run journal and dead letters. Find runs (by id,
 * agent prefix, status, error code, time), read one (each call's latency and attempts, approvals,
 * instructions, JSON to copy or export), see each tool's health, and act: approve or deny a paused
 * run's calls, resume an interrupted run, replay or acknowledge a dead letter (with `agents`). Open
 * pages are updated by server push. It binds 127.0.0.1 unless told otherwise, and refuses another
 * address without a `token`.
 *
 * @example
 * ```ts
 * import { startInspector } from "@needlework/inspector";
 * import { PostgresStore } from "@needlework/postgres";
 *
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * const inspector = await startInspector({ store, agents: [support] });
 * console.log(`open ${inspector.url}`);
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const settings = inspectorSettings(options);
  const { port, host, token } = settings;
  const k = inspection(settings);
  let origin = "";

  const app = new Hono();
  const pageOnly = guard(app, token, () => origin, k.actionsOf);
  findRoutes(app, k);
  runRoutes(app, k, pageOnly);
  cancelRoute(app, k, pageOnly);
  letterRoutes(app, k, pageOnly);
  watchRoutes(app, k, settings.watchMs);

  app.all("/api/*", (c) => c.json({ error: "Not found." }, 404));

  // ---- the page's files: a fixed list; the views' addresses serve the page itself
  app.get("/favicon.ico", (c) => c.body(null, 204)); // no icon, and no 404 in the browser's console
  for (const name of STATIC_FILES) app.get(`/${name}`, serveStatic({ path: publicFile(name) }));
  const page = serveStatic({ path: publicFile("index.html") });
  for (const path of PAGE_PATHS) app.get(path, page);

  // The store answers before the page is served: a missing database or tables are said now, in one error.
  // (Another failure may pass: the page then says it, with the error's code, on every load.)
  await settings.store.journal.list({ limit: 1 }).catch((error: unknown) => {
    const problem = storeProblem(error, (settings.store as { schema?: unknown }).schema as string | undefined);
    if (problem.code !== "STORE_UNREADABLE") throw problem;
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port, hostname: host }) as Server;
    started.once("error", (error) => reject(listenProblem(error, port) ?? error));
    started.once("listening", () => {
      started.removeAllListeners("error");
      resolve(started);
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  origin = `http://${shownHost}:${address.port}`;
  return {
    url: `${origin}/${token === undefined ? "" : `#token=${encodeURIComponent(token)}`}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
