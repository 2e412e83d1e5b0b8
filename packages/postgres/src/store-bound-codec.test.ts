import { randomBytes } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { aesGcmCodec } from "@needlework/workflows";
import { FakeCrm, resumeAgent } from "../../workflows/test/resume-contract.js";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";
import { refusedUnreadable } from "../../../test/support/payload-unreadable.js";

// Two schemas that share one key: a sealed value, row or artifact copied from one into the other
// does not open there (its associated data names the schema it was sealed in), and nothing of
// its plain text reaches the error.

const SECRET = "sk-live-STOREBOUNDcanary0123456789";

const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function twoSchemas(): Promise<{ a: PostgresStore; b: PostgresStore; q: (sql: string) => Promise<unknown> }> {
  const codec = aesGcmCodec(randomBytes(32)); // one key, shared by both stores
  const [sa, sb] = [freshSchema("sec4_a"), freshSchema("sec4_b")];
  const a = new PostgresStore({ connectionString: DATABASE_URL, schema: sa, codec, maxConnections: 2 });
  const b = new PostgresStore({ connectionString: DATABASE_URL, schema: sb, codec, maxConnections: 2 });
  stores.push(a, b);
  await a.migrate();
  await b.migrate();
  const q = (sql: string) => a.pool.query(sql.replaceAll("A.", `"${sa}".`).replaceAll("B.", `"${sb}".`));
  return { a, b, q };
}

/** The read is refused PAYLOAD_UNREADABLE, with no part of the sealed secret in message or stack. */
const refusal = (promise: Promise<unknown>): Promise<Error> => refusedUnreadable(promise, SECRET);

describePostgres("a codec's values are bound to their PostgreSQL schema", () => {
  it("a run's payload copied into another schema with the same key does not open there", async () => {
    const { a, b, q } = await twoSchemas();
    const crm = new FakeCrm();
    const steps = [{ toolCalls: [{ name: "sendEmail", arguments: { to: SECRET } }] }, { text: `Sent ${SECRET}.` }];
    await resumeAgent(crm, a, steps).agent.run(`Mail ${SECRET}.`, { runId: "run_moved" });
    await resumeAgent(crm, b, [{ text: "B's own." }]).agent.run("Nothing secret.", { runId: "run_moved" });
    expect(await a.storeId()).not.toBe(await b.storeId());
    expect((await a.journal.read("run_moved"))?.input).toBe(`Mail ${SECRET}.`);

    // One field: A's input (same run id, same field) over B's.
    await q(
      `UPDATE B.runs SET input = (SELECT input FROM A.runs WHERE run_id = 'run_moved') WHERE run_id = 'run_moved'`,
    );
    const moved = await refusal(b.journal.read("run_moved"));
    expect(moved.message).toMatch(/moved from another run, row, field or store/);

    // A whole run, its calls and artifacts: copied row for row into B.
    await resumeAgent(crm, a, steps).agent.run(`Mail ${SECRET} again.`, { runId: "run_copied" });
    await q(`INSERT INTO B.runs SELECT * FROM A.runs WHERE run_id = 'run_copied'`);
    await q(`INSERT INTO B.run_calls SELECT * FROM A.run_calls WHERE run_id = 'run_copied'`);
    await refusal(b.journal.read("run_copied"));
    await refusal(resumeAgent(crm, b, []).agent.resumeRun("run_copied"));
    // In its own schema it still opens.
    expect((await resumeAgent(crm, a, []).agent.resumeRun("run_copied")).text).toBe(`Sent ${SECRET}.`);
  });

  it("a dead letter copied into another schema is listed unreadable there; in its own it opens", async () => {
    const { a, b, q } = await twoSchemas();
    await a.deadLetters.append({
      runId: "run_letter",
      agent: "crm-sync",
      tool: "sendEmail",
      arguments: { to: SECRET },
      errorCode: "FORBIDDEN",
      callIds: ["c1"],
      outcomes: [{ message: SECRET }],
      time: new Date().toISOString(),
      reason: SECRET,
    });
    await q(`INSERT INTO B.dead_letters (run_id, agent, tool, error_code, entry, created_at)
             SELECT run_id, agent, tool, error_code, entry, created_at FROM A.dead_letters`);
    const [theirs] = await b.deadLetters.list();
    expect(theirs?.unreadable).toBe(true);
    expect(JSON.stringify(theirs)).not.toContain(SECRET);
    const [own] = await a.deadLetters.list();
    expect(own?.arguments).toEqual({ to: SECRET });
  });

  it("an artifact does not open in another schema, nor under another run of its own", async () => {
    const { a, b, q } = await twoSchemas();
    const content = JSON.stringify({ token: SECRET });
    const { id } = await a.artifacts.put({ runId: "run_art", content, items: 1, schema: { type: "object" } });
    expect((await a.artifacts.get("run_art", id))?.content).toBe(content);
    await q(`INSERT INTO B.artifacts SELECT * FROM A.artifacts`);
    await refusal(b.artifacts.get("run_art", id));
    await q(`UPDATE A.artifacts SET run_id = 'run_other'`);
    await refusal(a.artifacts.get("run_other", id));
  });
});
