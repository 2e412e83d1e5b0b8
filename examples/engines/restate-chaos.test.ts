import { restateServerBinary } from "@needlework/restate/testing";
import { expect, it } from "vitest";
import { cannotRun } from "../../test/support/cannot-run.js";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { runEngineChaos } from "./chaos.js";

const NAME = "Restate under kill -9 of the worker and of the server (spawned processes)";

if (restateServerBinary() === undefined) {
  cannotRun(NAME, "no restate-server binary: run `npx -y pnpm@10 install` (@restatedev/restate-server)");
} else {
  describePostgres(NAME, () => {
    it("30 runs of 4 calls, 10 SIGKILLs (every third of the server): G1-G3 hold, checked from the effects table", {
      timeout: 600_000,
    }, async () => {
      const summary = await runEngineChaos({ engine: "restate", databaseUrl: DATABASE_URL, runs: 30, kills: 10 });
      console.log(`Restate chaos: ${JSON.stringify({ ...summary, violations: summary.violations.length })}`);
      expect(summary.violations).toEqual([]);
      expect(summary.kills).toBeGreaterThanOrEqual(10);
      expect(summary.serverKills).toBeGreaterThanOrEqual(3);
      expect(summary.midCallKills).toBeGreaterThan(0);
      expect(summary.calls).toBe(120);
    });
  });
}
