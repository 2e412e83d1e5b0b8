/*
 * Dead letters: the list, acknowledge, and replay of a letter's call through its agent's tools.
 */
import type { DeadLetterFilter, ManagedDeadLetterQueue, StoredDeadLetter } from "@needlework/durable";
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { Inspection } from "./inspection.js";
import { actor, canReplay, HttpError, idFrom, integer, isManaged } from "./request.js";
import { unsealed } from "./run-view.js";

/** `GET /api/dead-letters`, `POST .../:id/acknowledge` and `.../:id/replay`. */
export function letterRoutes(app: Hono, k: Inspection, pageOnly: MiddlewareHandler): void {
  const { letters, readLetters, findLetter, byName, agentFor, journalAction, replaying, tokenSet } = k;
  app.get("/api/dead-letters", async (c) => {
    const acknowledged = c.req.query("acknowledged");
    const runId = c.req.query("run") || undefined;
    const offset = integer(c, "offset", 0, 10_000_000);
    const limit = integer(c, "limit", 50, 500) || 50;
    const filter: DeadLetterFilter = {
      ...(acknowledged === "true" || acknowledged === "false" ? { acknowledged: acknowledged === "true" } : {}),
      ...(runId ? { runId } : {}),
      offset,
      limit: limit + 1,
    };
    const page = await readLetters(filter);
    return c.json({
      acknowledgeable: isManaged(letters),
      letters: page.slice(0, limit).map((l) => ({
        ...(unsealed(l) as object),
        replayable: isManaged(letters) && byName.has(l.agent) && !l.acknowledgedAt,
      })),
      ...(page.length > limit ? { next: offset + limit } : {}),
    });
  });

  app.post("/api/dead-letters/:id/acknowledge", pageOnly, async (c) => {
    const id = idFrom(c, "id");
    if (!isManaged(letters)) throw new HttpError(405, "This store's dead letters cannot be acknowledged.");
    const acknowledged = await letters.acknowledge(id);
    if (acknowledged)
      await journalAction({ action: "acknowledge", letterId: id, by: actor(c, tokenSet), result: "done" });
    return c.json({ acknowledged });
  });

  app.post("/api/dead-letters/:id/replay", pageOnly, async (c) => {
    const id = idFrom(c, "id");
    if (!isManaged(letters)) throw new HttpError(405, "This store's dead letters cannot be replayed.");
    // One replay of a letter at a time in this process, from the lookup on (the queue's claim also
    // holds across processes); a second click meanwhile is refused, one after finds the letter closed.
    if (replaying.has(id)) throw new HttpError(409, "This letter is being replayed.", "REPLAY_IN_PROGRESS");
    replaying.add(id);
    try {
      return await replay(c, id, letters);
    } finally {
      replaying.delete(id);
    }
  });

  const replay = async (c: Context, id: string, queue: ManagedDeadLetterQueue): Promise<Response> => {
    const letter = await findLetter(id);
    if (!letter) throw new HttpError(404, "No open dead letter with this id.");
    if (letter.unreadable === true)
      throw new HttpError(409, "This letter cannot be opened with the store's codec.", "PAYLOAD_UNREADABLE");
    const agent = agentFor(letter.agent);
    const tool = agent.tools.get(letter.tool);
    if (!tool) throw new HttpError(409, `The agent '${agent.name}' has no tool '${letter.tool}'.`, "TOOL_NOT_FOUND");
    // Every way to run a gated call is gated: the tool's own `requiresApproval` and the agent's
    // `approvalPolicy` (asked through the agent; one that cannot say, or fails, counts as gated).
    const gated =
      tool.options.requiresApproval === true ||
      typeof agent.needsApproval !== "function" ||
      (await agent.needsApproval({ tool: letter.tool, arguments: letter.arguments }).catch(() => true));
    if (gated)
      throw new HttpError(
        409,
        "This tool needs approval: replay it through the agent, not from the page.",
        "APPROVAL_REQUIRED",
      );
    const by = actor(c, tokenSet);
    let outcome: { status: string; errorCode?: string } | undefined;
    const handler = async (claimed: StoredDeadLetter): Promise<void> => {
      const result = await agent.tools.invoke({ name: claimed.tool, arguments: claimed.arguments });
      outcome = { status: result.status, ...(result.errorCode ? { errorCode: result.errorCode } : {}) };
      // A failed replay leaves the letter open (PostgreSQL releases its claim).
      if (result.status !== "ok" && result.status !== "partial") throw new HttpError(409, "replay failed");
    };
    let replayed: boolean;
    try {
      if (canReplay(queue)) replayed = await queue.replay(id, handler);
      else {
        await handler(letter);
        replayed = true;
        await queue.acknowledge(id);
      }
    } catch (error) {
      if (!(error instanceof HttpError) || outcome === undefined) throw error;
      replayed = false;
    }
    const result = replayed ? "done" : (outcome?.errorCode ?? (outcome ? outcome.status : "NOT_CLAIMED"));
    await journalAction({ action: "replay", letterId: id, runId: letter.runId, by, result });
    if (replayed) return c.json({ replayed, ...(outcome ? { outcome } : {}) }, 200);
    // The call ran and failed again: its new outcome, said in words the page shows as they are.
    const code = outcome?.errorCode ?? outcome?.status ?? "NOT_CLAIMED";
    return c.json(
      {
        replayed,
        ...(outcome ? { outcome } : {}),
        code: "REPLAY_FAILED",
        error: outcome
          ? `The call failed again with ${code}; the letter stays open.`
          : "Another process is replaying this letter; it stays open.",
      },
      409,
    );
  };
}
