/*
 * Finding runs: newest first, by status, agent prefix (any case), error code, run id and time range,
 * paged by cursor.
 */
import type { RunSummary } from "@needlework/durable";
import { cursorAfter } from "@needlework/durable";
import type { Hono } from "hono";
import type { Inspection, ListRow } from "./inspection.js";
import { integer, time } from "./request.js";
import { foundStats } from "./run-stats.js";

/** `GET /api/runs`: the runs list and its search. */
export function findRoutes(app: Hono, k: Inspection): void {
  const { journal, readRun, listRow } = k;
  app.get("/api/runs", async (c) => {
    const status = c.req.query("status") || undefined;
    const agent = c.req.query("agent")?.trim().toLowerCase() || undefined;
    const code = c.req.query("code")?.trim() || undefined;
    const q = c.req.query("q")?.trim() || undefined;
    const cursor = c.req.query("cursor") || undefined;
    const limit = integer(c, "limit", 50, 500) || 50;
    const from = time(c, "from");
    const to = time(c, "to");
    // How many runs a search for an id's part looks at per request (then `next` goes on).
    const scan = integer(c, "scan", 0, 100_000);
    if (q !== undefined) {
      // A run id: that run, whatever the other filters say.
      const run = await readRun(q.length <= 500 ? q : "").catch(() => undefined);
      if (run) {
        const row = await listRow({
          runId: run.runId,
          agent: run.agent,
          startedAt: run.startedAt,
          status: run.end?.status ?? "running",
          ...(run.end ? { endedAt: run.end.endedAt } : {}),
        } as { runId: string; status: string });
        return c.json({ runs: [row] });
      }
    }
    // A store that finds runs itself (PostgreSQL, through its indexes): one statement a page.
    if (typeof journal.find === "function") {
      const page = await journal.find({
        limit,
        ...(status ? { status } : {}),
        ...(agent !== undefined ? { agentPrefix: agent } : {}),
        ...(code !== undefined ? { errorCode: code } : {}),
        ...(q !== undefined ? { idContains: q.slice(0, 500) } : {}),
        ...(from !== undefined ? { from: new Date(from).toISOString() } : {}),
        ...(to !== undefined ? { to: new Date(to).toISOString() } : {}),
        ...(cursor ? { cursor } : {}),
        ...(scan > 0 ? { scan } : {}),
      });
      const now = Date.now();
      const runs = page.runs.map((run) => {
        const { figures: _, interrupted, ...summary } = run;
        return {
          ...summary,
          ...(interrupted ? { status: "interrupted", interrupted: true } : {}),
          stats: foundStats(run, now),
        };
      });
      // A scan that stopped at its bound says how far it has looked (`next` goes on from there).
      const looked = page.scanned ? { scanned: page.scanned.runs, scannedThrough: page.scanned.through } : {};
      return c.json({ runs, ...(page.next ? { next: page.next } : {}), ...looked });
    }
    const simple = agent === undefined && code === undefined && q === undefined && from === undefined;
    const storeStatus = status === "interrupted" ? "running" : status;
    // The store filters by exact status and pages by cursor; agent prefix (any case), code, id and
    // time are filtered here, over at most `SCAN` summaries per request (then `next` goes on).
    const SCAN = scan || 2_000;
    let storeCursor =
      cursor ??
      (to === undefined
        ? undefined
        : cursorAfter({ startedAt: new Date(to + 1).toISOString(), runId: "", agent: "", status: "" }));
    const rows: ListRow[] = [];
    let scanned = 0;
    let next: string | undefined;
    let lastSeen: RunSummary | undefined;
    outer: while (rows.length < limit && scanned < SCAN) {
      const page = await journal.list({
        limit: simple ? limit : Math.min(200, SCAN - scanned),
        ...(storeStatus ? { status: storeStatus } : {}),
        ...(storeCursor ? { cursor: storeCursor } : {}),
      });
      // The page's candidates (filters on the summary first), then their runs read a batch at a
      // time in parallel (the figures need each run), in order, until the page is full.
      const candidates: RunSummary[] = [];
      let ended = false;
      for (const summary of page.runs) {
        scanned++;
        lastSeen = summary;
        if (from !== undefined && Date.parse(summary.startedAt) < from) {
          ended = true;
          break;
        }
        if (agent !== undefined && !summary.agent.toLowerCase().startsWith(agent)) continue;
        if (q !== undefined && !summary.runId.toLowerCase().includes(q.toLowerCase())) continue;
        candidates.push(summary);
      }
      for (let at = 0; at < candidates.length; ) {
        const batch = candidates.slice(at, at + Math.max(8, limit - rows.length));
        at += batch.length;
        const read = await Promise.all(batch.map(listRow));
        for (const [i, row] of read.entries()) {
          if (status === "interrupted" && row.status !== "interrupted") continue;
          if (code !== undefined && !(row.stats?.codes ?? []).includes(code)) continue;
          rows.push(row);
          if (rows.length === limit) {
            next = cursorAfter(batch[i]!);
            break outer;
          }
        }
      }
      if (ended) {
        next = undefined;
        break;
      }
      if (!page.next) {
        next = undefined;
        break;
      }
      storeCursor = page.next;
      next = page.next;
    }
    if (rows.length < limit && scanned >= SCAN && lastSeen) next = cursorAfter(lastSeen);
    // A search that stopped at its scan limit says how far it has looked (`next` goes on from there).
    const partial = rows.length < limit && scanned >= SCAN && next !== undefined;
    const looked = partial ? { scanned, scannedThrough: new Date(lastSeen!.startedAt).toISOString() } : {};
    return c.json({ runs: rows, ...(next ? { next } : {}), ...looked });
  });
}
