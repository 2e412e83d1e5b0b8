import { describe, expect, it } from "vitest";
import { cannotRun } from "../../test/support/cannot-run.js";
import pg from "pg";
import { runEngineChaos } from "./chaos.js";

const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

if (await postgresAnswers()) {
  describe("DBOS under kill -9 (spawned workers)", () => {
    it("30 runs of 4 calls, 10 SIGKILLs: G1-G3 hold, checked from the effects table", {
      timeout: 600_000,
    }, async () => {
      const summary = await runEngineChaos({ engine: "dbos", databaseUrl: DATABASE_URL, runs: 30, kills: 10 });
      expect(summary.kills).toBeGreaterThanOrEqual(10);
      expect(summary.violations).toEqual([]);
      expect(summary.calls).toBe(120);
    });
  });
} else {
  cannotRun("DBOS under kill -9 (spawned workers)", `no PostgreSQL server answers at ${DATABASE_URL}`);
}
