/*
 * Each tool's health over a window, and the server push that keeps open pages current.
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { cachedHealth } from "./health.js";
import type { Inspection } from "./inspection.js";
import { failure, HttpError, integer, leaseExpired } from "./request.js";

/** `GET /api/health` and `GET /api/events` (SSE). */
export function watchRoutes(app: Hono, k: Inspection, watchMs: number): void {
  const { store, journal, readRun, changed } = k;
  const health = cachedHealth(k);
  app.get("/api/health", async (c) => {
    const windowMinutes = integer(c, "minutes", 60, 60 * 24 * 30) || 60;
    return c.json(await health(windowMinutes));
  });

  // ---- live: server push
  app.get("/api/events", (c) => {
    const runId = c.req.query("run") || undefined;
    if (runId !== undefined && (runId.length > 500 || /[\u0000-\u001f]/.test(runId)))
      throw new HttpError(400, "Malformed id in the address.");
    const listQuery = c.req.query("list") ?? "";
    return streamSSE(c, async (stream) => {
      let wake: () => void = () => undefined;
      const onChange = (): void => wake();
      changed.on("change", onChange);
      stream.onAbort(() => {
        changed.off("change", onChange);
        wake();
      });
      let last = "";
      while (!stream.aborted) {
        try {
          if (runId !== undefined) {
            const run = await readRun(runId);
            // A fingerprint read from the run's counts: the view is rebuilt only when it changed.
            const settled = run ? run.calls.reduce((n, call) => n + (call.outcome ? 1 : 0), 0) : 0;
            // A run whose worker died turns interrupted when its lease expires: that is a change too.
            const lost = run && !run.end ? await leaseExpired(store.journal, runId) : false;
            const print = run
              ? `${run.turns.length}|${run.calls.length}|${settled}|${run.end?.status ?? ""}|${run.end?.endedAt ?? ""}|${lost}`
              : "none";
            if (print !== last) {
              last = print;
              await stream.writeSSE({ event: "run", data: print });
            }
          } else {
            const params = new URLSearchParams(listQuery);
            const status = params.get("status") === "interrupted" ? "running" : params.get("status") || undefined;
            const page = await journal.list({ limit: 50, ...(status ? { status } : {}) });
            const states = await Promise.all(
              page.runs.map(async (r) =>
                r.endedAt === undefined && (await leaseExpired(store.journal, r.runId)) ? "interrupted" : r.status,
              ),
            );
            const print = page.runs.map((r, i) => `${r.runId}:${states[i]}:${r.endedAt ?? ""}`).join(",");
            if (print !== last) {
              last = print;
              await stream.writeSSE({ event: "list", data: String(page.runs.length) });
            }
          }
        } catch (error) {
          await stream.writeSSE({ event: "problem", data: JSON.stringify(failure(error).body) });
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, watchMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    });
  });
}
