import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  DATABASE_URL,
  describePostgres,
  dropAfterTest,
  freshSchema,
} from "../../packages/postgres/src/test-database.js";

const examples = fileURLToPath(new URL("..", import.meta.url));

describePostgres("examples/durable-runs", () => {
  it("SIGKILLed workers lose no run and duplicate no effect (12 runs, 2 workers, 1 kill)", async () => {
    const schema = freshSchema("nw_test_durable");
    dropAfterTest(`${schema}_queue`);
    const env = {
      ...process.env,
      DATABASE_URL,
      DURABLE_RUNS: `runs=12,kills=1,concurrency=2,maxDelayMs=250,runTimeoutSeconds=5,schema=${schema}`,
    };
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--conditions=@needlework/source", "--import", "tsx", "durable-runs/cli.ts"],
        { cwd: examples, env, timeout: 240_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${out}\n${err}`)) : resolve(out)),
      );
    });
    const lines = stdout.trim().split("\n");
    expect(lines.some((line) => line.startsWith("SIGKILLed worker"))).toBe(true);
    expect(lines.at(-1)).toMatch(/^durable runs: 12 finished, 0 lost, 0 duplicate effects \(3 workers, 1 killed\)$/);
  }, 300_000);
});
