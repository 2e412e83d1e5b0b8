import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { runEngineChaos } from "./chaos.js";

describePostgres("DBOS under kill -9 (spawned workers)", () => {
  it("30 runs of 4 calls, 10 SIGKILLs aimed inside tool calls: G1-G3 hold, checked from the effects table", {
    timeout: 600_000,
  }, async () => {
    const summary = await runEngineChaos({ engine: "dbos", databaseUrl: DATABASE_URL, runs: 30, kills: 10 });
    console.log(`DBOS chaos: ${JSON.stringify({ ...summary, violations: summary.violations.length })}`);
    expect(summary.violations).toEqual([]);
    expect(summary.kills).toBeGreaterThanOrEqual(10);
    // Kills landed between a tool's effect and its answer (the calls in flight G2 is about).
    expect(summary.midCallKills).toBeGreaterThan(0);
    expect(summary.calls).toBe(120);
  });
});
