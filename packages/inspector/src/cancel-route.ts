/*
 * Cancel a running run from the page: `POST /api/runs/:id/cancel` records the store's cancel request
 * (`journal.requestCancel()`, with who and when); the run's holder sees it within a lease period,
 * aborts its in-flight calls and ends the run `cancelled`. Journaled in the action log like every action.
 */
import type { Hono, MiddlewareHandler } from "hono";
import type { Inspection } from "./inspection.js";
import { actor, HttpError, idFrom } from "./request.js";

/** `POST /api/runs/:id/cancel`: `{ status: "cancel_requested", by, at, already }`, or a refusal with its code. */
export function cancelRoute(app: Hono, k: Inspection, pageOnly: MiddlewareHandler): void {
  const { store, journalAction, tokenSet } = k;
  app.post("/api/runs/:id/cancel", pageOnly, async (c) => {
    const runId = idFrom(c, "id");
    const { journal } = store;
    if (typeof journal.requestCancel !== "function")
      throw new HttpError(409, "This store cannot record a cancel request.", "CANCEL_UNSUPPORTED");
    const by = actor(c, tokenSet);
    const at = new Date().toISOString();
    let asked: { by: string; at: string };
    try {
      asked = await journal.requestCancel(runId, { by, at });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "RUN_NOT_FOUND") throw new HttpError(404, "No run with this id in the store.", code);
      const shown = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "CANCEL_FAILED";
      await journalAction({ action: "cancel", runId, by, result: shown });
      if (shown === "RUN_ENDED") throw new HttpError(409, "This run has ended; there is nothing to cancel.", shown);
      throw new HttpError(409, "The cancel could not be recorded.", shown);
    }
    // A second request changes nothing: the first one's who and when stay, and the page says so.
    const already = asked.by !== by || asked.at !== at;
    await journalAction({ action: "cancel", runId, by, result: already ? "already requested" : "requested" });
    return c.json({ status: "cancel_requested", by: asked.by, at: asked.at, already });
  });
}
