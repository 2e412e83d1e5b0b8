// The inspector's action log on PostgreSQL at size: a run's view and a letter's view read their
// actions through an index, not by scanning every action the inspector ever journaled. The test
// asks PostgreSQL for the plan of the very statement the log sends, over 20,000 actions.
import type { AgentStore } from "@needlework/durable";
import pg from "pg";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres, freshSchema } from "../../postgres/src/test-database.js";
import { defaultActionLog } from "../src/action-log.js";

const ACTIONS = 20_000;

/** The node types of a JSON plan, depth first. */
function nodeTypes(plan: Record<string, unknown>): string[] {
  const children = (plan["Plans"] as Record<string, unknown>[] | undefined) ?? [];
  return [String(plan["Node Type"]), ...children.flatMap(nodeTypes)];
}

describePostgres("the inspector's action log over PostgreSQL", () => {
  it("reads a run's and a letter's actions through an index, and starts twice at once", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    const schema = freshSchema("nw_actions");
    const sent: { sql: string; values: unknown[] }[] = [];
    const spy = {
      query: async (sql: string, values?: unknown[]) => {
        sent.push({ sql, values: values ?? [] });
        return pool.query(sql, values);
      },
    };
    try {
      await pool.query(`CREATE SCHEMA "${schema}"`);
      const store = { pool: spy, schema } as unknown as AgentStore;
      // Two inspectors starting at the same moment both get a log (IF NOT EXISTS is not atomic).
      const [log] = await Promise.all([defaultActionLog(store), defaultActionLog(store)]);
      await pool.query(
        `INSERT INTO "${schema}".inspector_actions (id, run_id, letter_id, record, at)
         SELECT 'a' || n, 'run_' || (n % 5000), CASE WHEN n % 4 = 0 THEN 'dl_' || n END,
                jsonb_build_object('id', 'a' || n, 'action', 'approve', 'by', 'ops', 'at', now()), now()
         FROM generate_series(1, $1) AS n`,
        [ACTIONS],
      );
      await pool.query(`ANALYZE "${schema}".inspector_actions`);

      for (const query of [{ runId: "run_42" }, { letterId: "dl_400" }]) {
        sent.length = 0;
        const records = await log!.list(query);
        expect(records.length).toBeGreaterThan(0);
        const { sql, values } = sent.at(-1)!;
        const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
        const plan = (rows[0]!["QUERY PLAN"] as { Plan: Record<string, unknown> }[])[0]!.Plan;
        const types = nodeTypes(plan);
        expect(types.some((type) => type.includes("Index"))).toBe(true);
        expect(types).not.toContain("Seq Scan");
      }
    } finally {
      await pool.end();
    }
  });
});
