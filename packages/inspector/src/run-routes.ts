/*
 * One run: its view, its export as JSON, its artifacts, and the actions on it (approve or deny a
 * paused run's calls, resume an interrupted one).
 */
import type { ArtifactStore } from "@needlework/durable";
import type { Hono, MiddlewareHandler } from "hono";
import { z } from "zod";
import { artifactRoutes } from "./artifact-routes.js";
import type { InspectedAgent } from "./inspected-agent.js";
import type { Inspection } from "./inspection.js";
import { actor, HttpError, idFrom, leaseExpired } from "./request.js";
import { pausedRun, runView, unsealed } from "./run-view.js";

/** The body of an approval: a decision for every pending call (made once, at import). */
const decisionsSchema = z.strictObject({
  decisions: z.record(z.string().min(1).max(500), z.enum(["approved", "denied"])),
});

/** `GET /api/runs/:id` (and its export and artifacts), `POST .../decisions` and `.../resume`. */
export function runRoutes(app: Hono, k: Inspection, pageOnly: MiddlewareHandler): void {
  const { store, readRun, actionsOf, readLetters, byName, agentFor, journalAction, tokenSet } = k;
  app.get("/api/runs/:id", async (c) => {
    const runId = idFrom(c, "id");
    // The run's actions are read while the run is: one wait on the store, not two in turn.
    const log = actionsOf();
    const listed = log.then((actions) => actions.list({ runId }).catch(() => []));
    listed.catch(() => undefined); // a log that cannot open fails the view below, once the run is found
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const [interrupted, records, deadLetters] = await Promise.all([
      !run.end && leaseExpired(store.journal, runId),
      listed,
      run.end?.status === "dead_lettered" ? readLetters({ runId, limit: 20 }).catch(() => []) : [],
    ]);
    const view = runView(run, { interrupted });
    return c.json({
      ...view,
      actions: records,
      actable: byName.has(run.agent),
      ...(deadLetters.length > 0
        ? { deadLetters: deadLetters.map((l) => ({ id: l.id, tool: l.tool, errorCode: l.errorCode })) }
        : {}),
    });
  });

  app.get("/api/runs/:id/export", async (c) => {
    const runId = idFrom(c, "id");
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const view = runView(run);
    const body = JSON.stringify(
      {
        run: view.run,
        stats: view.stats,
        turns: run.turns.map((t) => ({ index: t.index, message: unsealed(t.message), usage: t.usage })),
        calls: run.calls.map((call) => ({
          callId: call.callId,
          tool: call.tool,
          arguments: unsealed(call.arguments),
          ...(call.outcome
            ? {
                outcome: {
                  status: call.outcome.outcome.status,
                  errorCode: call.outcome.outcome.errorCode,
                  message: unsealed(call.outcome.outcome.message),
                  suggestion: unsealed(call.outcome.outcome.suggestion),
                  data: unsealed(call.outcome.outcome.data),
                  metadata: call.outcome.outcome.metadata,
                },
                formatted: unsealed(call.outcome.formatted),
              }
            : {}),
        })),
        actions: await (await actionsOf()).list({ runId }).catch(() => []),
      },
      null,
      2,
    );
    c.header("content-disposition", `attachment; filename="run-${runId.replace(/[^A-Za-z0-9._-]/g, "_")}.json"`);
    return c.body(body, 200, { "content-type": "application/json; charset=utf-8" });
  });

  // ---- a run's artifacts: sizes, a first page, a download (the store's own artifacts)
  artifactRoutes(app, (store as { artifacts?: ArtifactStore }).artifacts);

  // ---- act: approve or deny, resume
  app.post("/api/runs/:id/decisions", pageOnly, async (c) => {
    const runId = idFrom(c, "id");
    const parsed = decisionsSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      throw new HttpError(400, "Send { decisions: { <callId>: 'approved' | 'denied' } } for every pending call.");
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const paused = pausedRun(run);
    if (!paused) throw new HttpError(409, "This run is not waiting for approval.", "NOT_PAUSED");
    const agent = agentFor(run.agent);
    const decisions = new Map(Object.entries(parsed.data.decisions));
    const pendingIds = new Set(paused.pending.map((p) => p.callId));
    if (decisions.size !== pendingIds.size || [...decisions.keys()].some((id) => !pendingIds.has(id)))
      throw new HttpError(400, "Decide every pending call of this run, and only those.");
    const by = actor(c, tokenSet);
    let status: string;
    try {
      // The agent's own resume: the checkpoint's signature, and that its pause is still open in the journal, are checked there.
      const result = await agent.resume(
        paused.checkpoint as Parameters<InspectedAgent["resume"]>[0],
        Object.fromEntries(decisions),
      );
      status = result.status;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const shown = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "RESUME_FAILED";
      for (const [callId, decision] of decisions)
        await journalAction({ action: decision === "approved" ? "approve" : "deny", runId, callId, by, result: shown });
      throw new HttpError(409, "The run could not be resumed with these decisions.", shown);
    }
    for (const [callId, decision] of decisions)
      await journalAction({ action: decision === "approved" ? "approve" : "deny", runId, callId, by, result: "done" });
    return c.json({ status });
  });

  app.post("/api/runs/:id/resume", pageOnly, async (c) => {
    const runId = idFrom(c, "id");
    const run = await store.journal.read(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    if (run.end) throw new HttpError(409, "This run has ended; there is nothing to resume.", "RUN_ENDED");
    const agent = agentFor(run.agent);
    const by = actor(c, tokenSet);
    try {
      const result = await agent.resumeRun(runId);
      await journalAction({ action: "resume", runId, by, result: "done" });
      return c.json({ status: result.status });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const shown = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "RESUME_FAILED";
      await journalAction({ action: "resume", runId, by, result: shown });
      throw new HttpError(
        409,
        shown === "RUN_BUSY" ? "Another process holds this run's lease." : "The run could not be resumed.",
        shown,
      );
    }
  });
}
