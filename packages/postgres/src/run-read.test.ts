// journal.read in one statement: a run reads back as written whether or not any of its strings
// needed the store's escape, wherever the escaped string is (only the result, only an outcome).
import { afterEach, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(): Promise<PostgresStore> {
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema: freshSchema() });
  stores.push(store);
  await store.migrate();
  return store;
}

/** A run of one turn and two calls, `text` in its end's result and `note` in the second call's outcome. */
async function writeRun(store: PostgresStore, runId: string, text: string, note: string) {
  const calls = [
    { callId: "c1", tool: "lookup", arguments: { q: "\\uE000 is text here" }, idempotencyKey: `${runId}:c1` },
    { callId: "c2", tool: "save", arguments: { q: "plain" }, idempotencyKey: `${runId}:c2` },
  ];
  const start = { runId, agent: "a", instructions: "Do.", input: "Go.", startedAt: "2026-11-29T01:00:00.000Z" };
  const turn = {
    index: 0,
    message: { role: "assistant" as const, content: "", toolCalls: [] },
    finishReason: "tool_calls",
  };
  await store.journal.commit!(runId, { start, turns: [turn], calls }, "w");
  const outcomes = calls.map((c) => ({
    callId: c.callId,
    idempotencyKey: c.idempotencyKey,
    outcome: { status: "ok" as const, retriable: false, data: { note: c.callId === "c2" ? note : "" }, metadata: {} },
    formatted: '{"status":"ok"}',
  }));
  const end = { status: "completed", endedAt: "2026-11-29T01:00:01.000Z", result: { text, messages: [] } };
  await store.journal.commit!(runId, { outcomes, end }, "w");
  return { start, turn, calls, outcomes, end };
}

describePostgres("PostgresRunJournal.read", () => {
  it.each([
    ["nothing escaped", "done", "saved"],
    ["only the result escaped", "a\u0000b\uD800c\uE000d", "saved"],
    ["only an outcome escaped", "done", "x\u0000y\uDC00"],
  ])("reads back a run as written: %s", async (_, text, note) => {
    const store = await openStore();
    const written = await writeRun(store, "run_read", text, note);
    const run = await store.journal.read("run_read");
    expect(run).toEqual({
      runId: "run_read",
      agent: "a",
      instructions: "Do.",
      input: "Go.",
      startedAt: written.start.startedAt,
      turns: [written.turn],
      calls: written.calls.map((c, i) => ({ ...c, outcome: written.outcomes[i] })),
      end: written.end,
    });
  });
});
